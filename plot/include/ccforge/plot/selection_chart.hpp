// The chart `tune` draws per collective: bus bandwidth against size for NCCL, the selected algorithm and
// the lower bound's ceiling, with the sizes where a tuned algorithm replaces NCCL shaded.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ccforge/ir/ir.hpp"
#include "ccforge/plot/chart.hpp"
#include "ccforge/output/selection_table.hpp"

namespace ccforge::plot {

// Bus bandwidth (nccl-tests' definition, GB/s) of a call of `bytes` taking `us` on `ranks` GPUs.
double bus_bandwidth_gbs(ir::Collective collective, int ranks, double bytes, double us);

// The chart of `collective`'s rows in `rows` (rows of other collectives are skipped; empty cells leave
// gaps in their series). `machine` names the topology in the title.
Chart selection_chart(const std::vector<output::SelectionRow>& rows, ir::Collective collective, int ranks,
                      const std::string& machine);

// dir/plots/COLLECTIVE.svg for each collective in `rows` (a tune's output::PlotWriter). SVG only: a PNG
// costs ~0.1 s a chart in cairo, which NDv5's 2 s tune target cannot afford.
void write_selection_plots(const std::vector<output::SelectionRow>& rows, int ranks, const std::string& machine,
                           const std::filesystem::path& dir);

}  // namespace ccforge::plot
