// Algorithm directories (--algos DIR, --tuned DIR/algorithms) and tune's lower bounds.
#include <algorithm>
#include <iterator>
#include <string>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/output/selection_table.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

std::vector<Candidate> load_algorithms(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw DiagError(Diag{{dir.string(), 0}, "not a directory", "pass a directory of MSCCL XML files"});
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".xml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // the executor's load order (formats.md §2.1)
  std::vector<Candidate> out;
  for (const fs::path& f : files) out.push_back(Candidate{ir::read_msccl_xml(f), f});
  return out;
}

std::vector<Candidate> load_tuned_algorithms(const std::filesystem::path& tune_dir) {
  namespace fs = std::filesystem;
  if (!fs::exists(tune_dir / "selection.csv"))
    throw DiagError(Diag{{tune_dir.string(), 0}, "not a tune output directory (no selection.csv)",
                         "pass the directory `ccforge tune --out` wrote"});
  std::vector<Candidate> out;
  for (const char* folder : {"algorithms", "algorithms-rooted"})
    if (fs::is_directory(tune_dir / folder)) {
      std::vector<Candidate> files = load_algorithms(tune_dir / folder);
      out.insert(out.end(), std::make_move_iterator(files.begin()), std::make_move_iterator(files.end()));
    }
  return out;
}

std::optional<int> common_rank_count(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) return std::nullopt;
  const int ranks = candidates.front().algorithm.ngpus;
  for (const Candidate& c : candidates)
    if (c.algorithm.ngpus != ranks) return std::nullopt;
  return ranks;
}

std::vector<TunedBound> read_tuned_bounds(const std::filesystem::path& selection_csv) {
  std::vector<TunedBound> out;
  for (const output::SelectionRow& row : output::read_selection_csv(read_file(selection_csv), selection_csv.string()))
    if (row.lower_bound_us) out.push_back(TunedBound{ir::to_string(row.collective), row.size_bytes, *row.lower_bound_us});
  return out;
}

}  // namespace ccforge::validate
