// A tune as `ccforge tune` runs it: search::tune, then (on the lead process) the output part writes the
// directory from the result (output::write_tune_outputs), for the tests that read the files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ccforge/output/tune_outputs.hpp"
#include "ccforge/plot/selection_chart.hpp"
#include "ccforge/search/search.hpp"

namespace ccforge::search {

// The result, and what writing kept of an earlier tune in the directory.
struct WrittenResult : TuneResult {
  std::vector<std::string> carried_over;
  std::string replaced;
};

// Writes `r`'s directory where its process leads the job.
inline WrittenResult written(TuneResult r, const TuneOptions& options) {
  WrittenResult w{std::move(r), {}, {}};
  if (options.share == nullptr || options.share->rank() == 0) {
    const output::WrittenTune out = output::write_tune_outputs(tune_report(w, options), plot::write_selection_plots);
    w.carried_over = out.carried_over;
    w.replaced = out.replaced;
  }
  return w;
}

inline WrittenResult tune_and_write(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  return written(tune(topo, options, params), options);
}

inline WrittenResult tune_and_write(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params,
                                    std::vector<CandidateSet> candidates) {
  return written(tune(topo, options, params, std::move(candidates)), options);
}

}  // namespace ccforge::search
