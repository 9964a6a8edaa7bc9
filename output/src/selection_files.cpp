#include "ccforge/output/selection_files.hpp"

#include "ccforge/common/atomic_file.hpp"

namespace ccforge::output {

void write_selection_files(const std::filesystem::path& dir, const std::vector<SelectionRow>& rows,
                           const std::string& md_title, const std::string& md_tail) {
  write_file_atomically(dir / "selection.csv", selection_csv(rows));
  write_file_atomically(dir / "selection.md", md_title + selection_markdown(rows) + md_tail);
}

}  // namespace ccforge::output
