// selection.csv and selection.md in an output folder: what `ccforge tune` (simulated) and `ccforge
// validate` (measured) both write, each around the same tables with its own title and closing section.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ccforge/output/selection_table.hpp"

namespace ccforge::output {

// Each file written atomically; selection.md is `md_title`, the tables (selection_markdown), `md_tail`.
void write_selection_files(const std::filesystem::path& dir, const std::vector<SelectionRow>& rows,
                           const std::string& md_title, const std::string& md_tail);

}  // namespace ccforge::output
