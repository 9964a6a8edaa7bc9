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

template <typename... Candidates>
WrittenResult tune_and_write(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params,
                             Candidates&&... candidates) {
  WrittenResult r{tune(topo, options, params, std::forward<Candidates>(candidates)...), {}, {}};
  if (options.share == nullptr || options.share->rank() == 0) {
    const output::WrittenTune written = output::write_tune_outputs(tune_report(r, options), plot::write_selection_plots);
    r.carried_over = written.carried_over;
    r.replaced = written.replaced;
  }
  return r;
}

}  // namespace ccforge::search
