// The tune's output directory as a whole: collectives a re-tune does not cover are carried over from the
// earlier tune instead of vanishing with the swap (check_output_dir, in tune_outputs.hpp, guards the rest).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ccforge/output/tune_report.hpp"

namespace ccforge::output {

// What an earlier tune in the directory had for collectives this one does not cover.
struct CarryOver {
  std::vector<std::string> collectives;
  std::string replaced;  // non-empty: why nothing was carried although the earlier tune had other collectives
  std::vector<SelectionRow> selection_rows;  // their selection.csv rows (selection.md's tables too)
  std::vector<std::string> band_rows;       // bands.csv lines, without the header
  std::vector<std::string> tuner_rules;     // nccl-tuner.conf rules
  nlohmann::json report_entries = nlohmann::json::array();  // their report.json "collectives" entries
  std::vector<std::string> files;           // their exported files, relative to the directory
};
// Empty for a directory without an earlier report; from an earlier tune of another topology or runtime
// nothing is carried (`replaced` says so).
CarryOver read_carry_over(const std::filesystem::path& dir, const TuneReport& report);

}  // namespace ccforge::output
