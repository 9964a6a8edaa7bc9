// A tune's output directory: selection.csv/.md, bands.csv, algorithms/*.xml, nccl-tuner.conf, plots/,
// report.json, DEPLOY.md and env.sh, replaced as a whole. Only ccforge's own files may be replaced, and
// collectives a re-tune does not cover are carried over from the earlier tune instead of vanishing with
// the swap. Everything but report.json's "timing" member is a pure function of the report.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ccforge/output/selection_table.hpp"
#include "ccforge/output/tune_report.hpp"

namespace ccforge::output {

// Throws a DiagError (before any work) when `dir` holds anything a tune does not write: replacing the
// directory as a whole would delete it.
void check_output_dir(const std::filesystem::path& dir);

// Draws plots/COLLECTIVE.svg under `dir` for each collective in `rows` (plot::write_selection_plots):
// charts are the plot part's, which depends on this one.
using PlotWriter = std::function<void(const std::vector<SelectionRow>& rows, int ranks, const std::string& topology,
                                      const std::filesystem::path& dir)>;

// What writing kept or dropped of an earlier tune in the directory.
struct WrittenTune {
  std::vector<std::string> carried_over;  // collectives kept from the earlier tune
  std::string replaced;  // non-empty: an earlier tune of another machine or runtime was replaced
};

// Writes everything into a fresh directory beside report.request.out_dir (carrying over the collectives
// of an earlier tune there that this one does not cover, unless request.replace) and swaps it in at once.
WrittenTune write_tune_outputs(const TuneReport& report, const PlotWriter& plots);

}  // namespace ccforge::output
