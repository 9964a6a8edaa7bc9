#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>

#include "ccforge/sim/node_rings.hpp"
#include "copy_folding.hpp"
#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"
#include "trees.hpp"

namespace ccforge::sim::nccl {
namespace {

// NCCL tree chunk: one protocol step (calcBytePerStep, ir::step_bytes).
double tree_chunk(ir::Protocol proto) { return static_cast<double>(ir::step_bytes(proto)); }

// One tree channel (NCCL all_reduce.h runTreeUpDown/runTreeSplit): per chunk, every rank reduces
// what its children sent and passes it to its parent; the root then sends the result down, every rank
// forwarding what its parent sent to its children.
// Folded paths of one tree standing for its rotations, keyed by (src, dst) of its sends.
using FoldedSends = std::map<std::pair<int, int>, PathId>;

void lower_tree_channel(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, const GpuTree& tree,
                        const std::string& name, double weight, const FoldedSends* folded) {
  const topo::Topology& topo = low.topo();
  const int p = topo.num_gpus();
  auto send = [&](int src, int dst, double payload, int track, std::uint32_t label) {
    if (folded == nullptr) return low.add_transfer(src, dst, payload, costs, track, label, true, weight);
    // As Lowering::add_transfer, on the folded path.
    return low.add_fabric_op(folded->at({src, dst}), payload / costs.wire_efficiency, costs.tb_bytes_per_s,
                             transfer_alpha(costs, topo.route(src, dst)), track, label, weight);
  };
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
      const TaskId t = send(r, tree.parent[r], chunk, tracks[r], up_label);
      for (int c : tree.children[r]) low.graph().depend(up[c], t);
      up_order[r].chain(low.graph(), t, up_net[r] != 0);
      up[r] = t;
    }
    for (auto it = tree.leaves_first.rbegin(); it != tree.leaves_first.rend(); ++it) {
      const int r = *it;
      const auto& kids = tree.children[r];
      for (std::size_t k = 0; k < kids.size(); ++k) {
        const TaskId t = send(r, kids[k], chunk, tracks[r], down_label);
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

// Tree `which` with rotation 0 standing for all ppn rotations, which are its images under rotating the
// local GPUs and rails; nullopt unless that is exact (copy_folding.hpp).
std::optional<FoldedSends> fold_rotations(Lowering& low, int which) {
  const topo::Topology& topo = low.topo();
  const int g = topo.gpus_per_node();
  auto rotate = [&](int rank, int by) { return rank / g * g + (rank % g + by) % g; };
  const GpuTree tree = gpu_tree(topo, which, 0);
  std::vector<std::pair<int, int>> sends;
  for (int r = 0; r < topo.num_gpus(); ++r) {
    if (tree.parent[r] >= 0) sends.emplace_back(r, tree.parent[r]);
    for (int c : tree.children[r]) sends.emplace_back(r, c);
  }
  std::vector<std::vector<std::vector<std::uint32_t>>> by_send;
  for (const auto& [src, dst] : sends) {
    const topo::Route& r0 = topo.route(src, dst);
    by_send.emplace_back();
    for (int by = 0; by < g; ++by) {
      const topo::Route& r = topo.route(rotate(src, by), rotate(dst, by));
      if (r.latency != r0.latency || r.path_class != r0.path_class) return std::nullopt;
      std::vector<std::uint32_t> links;
      for (LinkId l : r.links) links.push_back(l.v);
      by_send.back().push_back(std::move(links));
    }
  }
  const auto folded = fold_copies(topo, by_send);
  if (!folded) return std::nullopt;
  FoldedSends out;
  for (std::size_t k = 0; k < sends.size(); ++k) out[sends[k]] = low.graph().add_path((*folded)[k]);
  return out;
}

}  // namespace

void lower_tree(Lowering& low, const NcclCall& call, bool fold) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.arch());
  const topo::Topology& topo = low.topo();
  // Channel c runs tree c % 2 with its node chains starting at entries[(c / 2) % entries], GPUs with a
  // NIC in service (sim/node_rings.hpp), so that channels leave and enter nodes through different GPUs
  // and NICs. Inside one node both trees are the same chain and every channel runs it. Channels with the
  // same shape are simulated once, weighted by their count.
  const std::vector<int> entries = rail_entries(topo);
  const int rails = static_cast<int>(entries.size());
  const int shapes = topo.num_nodes() == 1 ? 1 : std::min(call.nchannels, 2 * rails);
  // Across nodes the rotations of a tree are images of one another: where that is exact, one rotation
  // per tree stands for all.
  const int g = topo.gpus_per_node();
  if (fold && shapes == 2 * g && g > 1 && call.nchannels % shapes == 0 && costs.gpu_bytes_per_s == 0.0) {
    const auto tree0 = fold_rotations(low, 0);
    const auto tree1 = tree0 ? fold_rotations(low, 1) : std::nullopt;
    if (tree0 && tree1) {
      const double weight = call.nchannels / shapes;
      lower_tree_channel(low, call, costs, gpu_tree(topo, 0, 0), "tree 0 all rotations", weight, &*tree0);
      lower_tree_channel(low, call, costs, gpu_tree(topo, 1, 0), "tree 1 all rotations", weight, &*tree1);
      return;
    }
  }
  for (int s = 0; s < shapes; ++s) {
    double weight = 0;
    for (int c = s; c < call.nchannels; c += shapes) ++weight;
    const int which = s % 2;
    const int rotation = entries[static_cast<std::size_t>((s / 2) % rails)];
    lower_tree_channel(low, call, costs, gpu_tree(topo, which, rotation), fmt::format("tree {} rot {}", which, rotation),
                       weight, nullptr);
  }
}

}  // namespace ccforge::sim::nccl
