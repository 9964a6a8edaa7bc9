#include <fmt/core.h>

#include <algorithm>

#include "costs.hpp"
#include "nccl_lowering.hpp"

namespace ccforge::sim::nccl {
namespace {

// NCCL tree chunk: one protocol step (calcBytePerStep: Simple 512 KiB, LL 32 KiB, LL128 576,000 B).
double tree_chunk(ir::Protocol proto) {
  switch (proto) {
    case ir::Protocol::Simple:
      return 512.0 * 1024;
    case ir::Protocol::LL:
      return 32.0 * 1024;
    case ir::Protocol::LL128:
      return 576000.0;
  }
  return 512.0 * 1024;
}

}  // namespace

void lower_tree(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.arch());
  const int p = low.topo().num_gpus();
  const std::uint32_t up = low.graph().add_label("tree reduce");
  const std::uint32_t down = low.graph().add_label("tree broadcast");
  // Every channel runs the same chain: simulate one, weighted by the channel count.
  const double weight = call.nchannels;
  {
    std::vector<int> tracks(p);
    for (int r = 0; r < p; ++r) tracks[r] = low.track(fmt::format("rank {} ch 0 x{} (tree)", r, call.nchannels));
    // Chain 0 - 1 - ... - p-1: hop h of the reduce goes p-1-h -> p-2-h, of the broadcast h -> h+1.
    std::vector<TaskId> last_up(p - 1), last_down(p - 1);
    double remaining = call.bytes / call.nchannels;
    bool started = false;
    while (remaining > 0.0) {
      const double chunk = std::min(tree_chunk(call.proto), remaining);
      remaining -= chunk;
      TaskId prev = 0;
      for (int h = 0; h < p - 1; ++h) {
        const TaskId t = low.add_transfer(p - 1 - h, p - 2 - h, chunk, costs, tracks[p - 1 - h], up, true, weight);
        if (started) low.graph().depend(last_up[h], t);
        if (h > 0) low.graph().depend(prev, t);
        last_up[h] = prev = t;
      }
      for (int h = 0; h < p - 1; ++h) {
        const TaskId t = low.add_transfer(h, h + 1, chunk, costs, tracks[h], down, true, weight);
        if (started) low.graph().depend(last_down[h], t);
        low.graph().depend(prev, t);
        last_down[h] = prev = t;
      }
      started = true;
    }
  }
}

}  // namespace ccforge::sim::nccl
