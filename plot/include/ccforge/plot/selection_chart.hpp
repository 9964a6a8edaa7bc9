// The chart `tune` draws per collective: bus bandwidth against size for NCCL, the selected algorithm and
// the lower bound's ceiling, with the sizes where a tuned algorithm replaces NCCL shaded.
#pragma once

#include <string>
#include <vector>

#include "ccforge/ir/ir.hpp"
#include "ccforge/plot/chart.hpp"
#include "ccforge/sim/selection_table.hpp"

namespace ccforge::plot {

// Bus bandwidth (nccl-tests' definition, GB/s) of a call of `bytes` taking `us` on `ranks` GPUs.
double bus_bandwidth_gbs(ir::Collective collective, int ranks, double bytes, double us);

// The chart of `collective`'s rows in `rows` (rows of other collectives are skipped; empty cells leave
// gaps in their series). `machine` names the topology in the title.
Chart selection_chart(const std::vector<sim::SelectionRow>& rows, ir::Collective collective, int ranks,
                      const std::string& machine);

}  // namespace ccforge::plot
