#include <fmt/core.h>

#include <algorithm>

#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"
#include "trees.hpp"

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

// One tree channel (NCCL all_reduce.h runTreeUpDown/runTreeSplit): per chunk, every rank reduces
// what its children sent and passes it to its parent; the root then sends the result down, every rank
// forwarding what its parent sent to its children.
void lower_tree_channel(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, const GpuTree& tree,
                        const std::string& name, double weight) {
  const topo::Topology& topo = low.topo();
  const int p = topo.num_gpus();
  const std::uint32_t up_label = low.graph().add_label("tree reduce");
  const std::uint32_t down_label = low.graph().add_label("tree broadcast");
  std::vector<int> tracks(p);
  for (int r = 0; r < p; ++r) tracks[r] = low.track(fmt::format("rank {} {} x{} (tree)", r, name, weight));
  std::vector<SendOrder> up_order(p);
  std::vector<std::vector<SendOrder>> down_order(p);
  std::vector<char> up_net(p);
  std::vector<std::vector<char>> down_net(p);
  for (int r = 0; r < p; ++r) {
    if (tree.parent[r] >= 0) up_net[r] = crosses_network(topo, r, tree.parent[r]);
    down_order[r].resize(tree.children[r].size());
    for (int c : tree.children[r]) down_net[r].push_back(crosses_network(topo, r, c));
  }
  std::vector<TaskId> up(p), down(p);  // this chunk: the send to the parent, the send from the parent
  double remaining = call.bytes / call.nchannels;
  while (remaining > 0.0) {
    const double chunk = std::min(tree_chunk(call.proto), remaining);
    remaining -= chunk;
    for (int r : tree.leaves_first) {
      if (tree.parent[r] < 0) continue;
      const TaskId t = low.add_transfer(r, tree.parent[r], chunk, costs, tracks[r], up_label, true, weight);
      for (int c : tree.children[r]) low.graph().depend(up[c], t);
      up_order[r].chain(low.graph(), t, up_net[r] != 0);
      up[r] = t;
    }
    for (auto it = tree.leaves_first.rbegin(); it != tree.leaves_first.rend(); ++it) {
      const int r = *it;
      const auto& kids = tree.children[r];
      for (std::size_t k = 0; k < kids.size(); ++k) {
        const TaskId t = low.add_transfer(r, kids[k], chunk, costs, tracks[r], down_label, true, weight);
        if (r == tree.root) {
          for (int c : kids) low.graph().depend(up[c], t);
        } else {
          low.graph().depend(down[r], t);
        }
        down_order[r][k].chain(low.graph(), t, down_net[r][k] != 0);
        down[kids[k]] = t;
      }
    }
  }
}

}  // namespace

void lower_tree(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.arch());
  const topo::Topology& topo = low.topo();
  // Channel c runs tree c % 2 with its node chains rotated by (c / 2) % ppn, so that channels leave
  // and enter nodes through different GPUs and NICs. Inside one node both trees are the same chain and
  // every channel runs it. Channels with the same shape are simulated once, weighted by their count.
  const int shapes = topo.num_nodes() == 1 ? 1 : std::min(call.nchannels, 2 * topo.gpus_per_node());
  for (int s = 0; s < shapes; ++s) {
    double weight = 0;
    for (int c = s; c < call.nchannels; c += shapes) ++weight;
    const int which = s % 2;
    const int rotation = (s / 2) % topo.gpus_per_node();
    lower_tree_channel(low, call, costs, gpu_tree(topo, which, rotation), fmt::format("tree {} rot {}", which, rotation),
                       weight);
  }
}

}  // namespace ccforge::sim::nccl
