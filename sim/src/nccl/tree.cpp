#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>

#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "chunk_loop.hpp"
#include "copy_folding.hpp"
#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"
#include "trees.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {
namespace {

// Folded paths of one tree standing for its rotations, keyed by (src, dst) of its sends.
using FoldedSends = std::map<std::pair<int, int>, PathId>;

// One tree channel (NCCL all_reduce.h runTreeUpDown/runTreeSplit): per chunk, every rank reduces
// what its children sent and passes it to its parent; the root then sends the result down, every rank
// forwarding what its parent sent to its children.
// Receiver back-pressure: a tree chunk is one step, one buffer slot of the connection, and the receiver
// frees the slot (posts its head) only once the op that reads it is done (NVIDIA/nccl @5067397c
// src/device/prims_simple.h genericOp: postPeer after reduceCopy; prims_ll.h postRecv), while the
// sender waits for head + NCCL_STEPS to cover its step (prims_simple.h waitPeer, prims_ll.h waitSend;
// src/include/device.h NCCL_STEPS 8). So a send of chunk k waits for the receiver's forwarding of chunk
// k - kNcclSteps: up, the parent's send to its parent (at the root its sends down: it reduces and
// broadcasts in one op, runTreeSplit); down, the child's sends to its children. A leaf frees its slot
// on arrival, which SendOrder already orders.
class TreeChannel {
 public:
  TreeChannel(Lowering& low, const ProtocolCosts& costs, GpuTree tree, const std::string& name, double weight,
              const FoldedSends* folded)
      : low_(low), costs_(costs), tree_(std::move(tree)), weight_(weight), folded_(folded) {
    const topo::Topology& topo = low.topo();
    const int p = topo.num_gpus();
    up_label_ = low.graph().add_label("tree reduce");
    down_label_ = low.graph().add_label("tree broadcast");
    tracks_.resize(p);
    for (int r = 0; r < p; ++r) tracks_[r] = low.track(fmt::format("rank {} {} x{} (tree)", r, name, weight));
    up_order_.resize(p);
    down_order_.resize(p);
    up_net_.resize(p);
    down_net_.resize(p);
    for (int r = 0; r < p; ++r) {
      if (tree_.parent[r] >= 0) up_net_[r] = crosses_network(topo, r, tree_.parent[r]);
      down_order_[r].resize(tree_.children[r].size());
      for (int c : tree_.children[r]) down_net_[r].push_back(crosses_network(topo, r, c));
    }
    up_.resize(p);
    down_.resize(p);
    up_sent_.resize(static_cast<std::size_t>(p) * ir::kNcclSteps);
    down_sent_.resize(static_cast<std::size_t>(p) * ir::kNcclSteps);
  }

  // The next chunk of `chunk` bytes, reduced up the tree and broadcast back down.
  void chunk(double chunk) {
    TaskGraph& graph = low_.graph();
    // This chunk's slots; each holds chunk index_ - kNcclSteps's sends until overwritten below.
    const bool slots_full = index_ >= static_cast<std::uint64_t>(ir::kNcclSteps);
    const auto slot = static_cast<std::size_t>(index_ % ir::kNcclSteps);
    for (int r : tree_.leaves_first) {
      const int parent = tree_.parent[r];
      if (parent < 0) continue;
      const TaskId t = send(r, parent, chunk, tracks_[r], up_label_);
      for (int c : tree_.children[r]) graph.depend(up_[c], t);
      if (slots_full) {
        if (parent == tree_.root) {
          for (TaskId freed : down_sent(parent, slot)) graph.depend(freed, t);
        } else {
          graph.depend(up_sent_[slot_of(parent, slot)], t);
        }
      }
      up_order_[r].chain(graph, t, up_net_[r] != 0);
      up_[r] = t;
      up_sent_[slot_of(r, slot)] = t;  // r's children, which read it, came before r
    }
    for (auto it = tree_.leaves_first.rbegin(); it != tree_.leaves_first.rend(); ++it) {
      const int r = *it;
      const auto& kids = tree_.children[r];
      std::vector<TaskId>& sent = down_sent_[slot_of(r, slot)];  // read by r's parent, which came before r
      sent.clear();
      for (std::size_t k = 0; k < kids.size(); ++k) {
        const TaskId t = send(r, kids[k], chunk, tracks_[r], down_label_);
        if (r == tree_.root) {
          for (int c : kids) graph.depend(up_[c], t);
        } else {
          graph.depend(down_[r], t);
        }
        if (slots_full) {
          for (TaskId freed : down_sent(kids[k], slot)) graph.depend(freed, t);
        }
        down_order_[r][k].chain(graph, t, down_net_[r][k] != 0);
        down_[kids[k]] = t;
        sent.push_back(t);
      }
    }
    ++index_;
  }

 private:
  // A send of the current chunk (its index shown in a trace).
  TaskId send(int src, int dst, double payload, int track, std::uint32_t label) {
    const TaskId t =
        folded_ == nullptr
            ? low_.add_transfer(src, dst, payload, costs_, track, label, true, weight_)
            // As Lowering::add_transfer, on the folded path.
            : low_.add_fabric_op(folded_->at({src, dst}), payload / costs_.wire_efficiency, costs_.tb_bytes_per_s,
                                 transfer_alpha(costs_, low_.topo().route(src, dst)), track, label, weight_);
    low_.set_chunk(t, static_cast<int>(index_));
    return t;
  }

  std::size_t slot_of(int rank, std::size_t slot) const {
    return static_cast<std::size_t>(rank) * ir::kNcclSteps + slot;
  }
  const std::vector<TaskId>& down_sent(int rank, std::size_t slot) const { return down_sent_[slot_of(rank, slot)]; }

  Lowering& low_;
  ProtocolCosts costs_;
  GpuTree tree_;
  double weight_;
  const FoldedSends* folded_;
  std::uint32_t up_label_ = 0, down_label_ = 0;
  std::vector<int> tracks_;
  std::vector<SendOrder> up_order_;
  std::vector<std::vector<SendOrder>> down_order_;
  std::vector<char> up_net_;
  std::vector<std::vector<char>> down_net_;
  std::vector<TaskId> up_, down_;  // the last chunk's send to the parent, send from the parent, per rank
  // Per (rank, chunk mod kNcclSteps): its send to the parent, its sends to its children.
  std::vector<TaskId> up_sent_;
  std::vector<std::vector<TaskId>> down_sent_;
  std::uint64_t index_ = 0;  // chunks lowered so far
};

// Local order of the node chains of tree channel shape k: multi-node ring k's order inside a node.
std::vector<int> chain_order(const topo::Topology& topo, const std::vector<int>& entries,
                             const std::vector<std::vector<int>>& node_cycles, int k) {
  std::vector<int> ring = multi_node_ring(topo, entries, node_cycles, k);
  ring.resize(static_cast<std::size_t>(topo.gpus_per_node()));
  return ring;
}

// Tree `which` with rotation 0 standing for all ppn rotations, which are its images under rotating the
// local GPUs and rails; nullopt unless that is exact (copy_folding.hpp).
std::optional<FoldedSends> fold_rotations(Lowering& low, int which) {
  const topo::Topology& topo = low.topo();
  const int g = topo.gpus_per_node();
  auto rotate = [&](int rank, int by) { return rank / g * g + (rank % g + by) % g; };
  const GpuTree tree = gpu_tree(topo, which, chain_order(topo, {0}, {}, 0));
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

// NCCL's chunk code before v2.20.3-1's computeCollChunkInfo: tree Simple halves by the tree's depth
// (TuningConstants::tree_simple_chunk_by_depth) and tree LL128 counts its steps in line bytes.
bool chunks_before_2_20(const SimConstants& params) {
  return tuning_tables_for(params.nccl_version)->tree_simple_chunk_by_depth;
}

// NCCL's tree LL128 chunk (src/enqueue.cc, the same rule from v2.9.9-1 to v2.28.9-1): the step halves while
// a channel would get fewer than nsteps x 64 / ppn whole chunks, down to 128 KiB, then fewer than nsteps x
// 16 / ppn, down to 32 KiB, with nsteps = 1 + log2(nodes) + 0.1 ppn. A chunk carries 15 of every 16 words
// of its lines (NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS); up to 2.19 the rule counts the step in line
// bytes (buffer / NCCL_STEPS) and converts after, from v2.20.3-1 (computeCollChunkInfo) in data bytes.
double tree_ll128_chunk_bytes(const NcclCall& call, const topo::Topology& topo, const SimConstants& params) {
  const double ppn = static_cast<double>(topo.num_gpus()) / topo.num_nodes();
  const double nsteps = 1 + log2_floor(topo.num_nodes()) + 0.1 * ppn;
  const std::initializer_list<ChunkHalving> rules = {{nsteps * 64 / ppn, 131072}, {nsteps * 16 / ppn, 32768}};
  const double data_step = static_cast<double>(ir::step_bytes(ir::Protocol::LL128));
  if (!chunks_before_2_20(params)) return halved_chunk(call.bytes, call.nchannels, data_step, rules);
  const double line_step = static_cast<double>(ir::kLL128BufferBytes / ir::kNcclSteps);
  return halved_chunk(call.bytes, call.nchannels, line_step, rules) * 15 / 16;
}

// NCCL's tree chunk: LL128's above; else one protocol step (calcBytePerStep, ir::step_bytes), which
// Simple halves while a channel would have fewer than depth x 8 / x 4 / x 1 chunks, down to 128 / 64 /
// 32 KiB, in the NCCL versions whose tables say so (TuningConstants::tree_simple_chunk_by_depth) and in
// RCCL (ROCm/rccl @0cbce2a src/enqueue.cc computeCollChunkInfo). The depth is NCCL's estimate
// (src/graph/connect.cc: ranks per node - 1 + log2(nodes)).
double tree_chunk_bytes(const NcclCall& call, const topo::Topology& topo, const SimConstants& params) {
  if (call.proto == ir::Protocol::LL128) return tree_ll128_chunk_bytes(call, topo, params);
  const double step = static_cast<double>(ir::step_bytes(call.proto));
  const bool rccl = msccl_runtime(topo) == ir::Runtime::Rccl;
  if (call.proto != ir::Protocol::Simple || (!rccl && !chunks_before_2_20(params)))
    return step;
  const double depth = topo.gpus_per_node() - 1 + log2_floor(topo.num_nodes());
  return halved_chunk(call.bytes, call.nchannels, step, {{depth * 8, 131072}, {depth * 4, 65536}, {depth, 32768}});
}

}  // namespace

std::uint64_t tree_chunks(const NcclCall& call, const topo::Topology& topo, const SimConstants& params) {
  return chunk_loop(call.bytes / call.nchannels, tree_chunk_bytes(call, topo, params)).count;
}

void lower_tree(Lowering& low, const NcclCall& call, bool fold) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.arch());
  const topo::Topology& topo = low.topo();
  const ChunkLoop loop = chunk_loop(call.bytes / call.nchannels, tree_chunk_bytes(call, topo, low.params()));
  // Channel c runs tree c % 2 with its node chains in the order of multi-node ring c / 2 (starting at a
  // GPU with a NIC in service; on mesh nodes along that ring's cycle: sim/node_rings.hpp), so that
  // channels leave and enter nodes through different GPUs and NICs and cross mesh nodes on different
  // links. Inside one node both trees are the same chain and every channel runs it. Channels with the
  // same shape are simulated once, weighted by their count.
  const std::vector<int> entries = rail_entries(topo);
  const std::vector<std::vector<int>> node_cycles = node_mesh_rings(topo, entries);
  const int orders = multi_node_ring_count(entries, node_cycles);
  const int shapes = topo.num_nodes() == 1 ? 1 : std::min(call.nchannels, 2 * orders);
  std::vector<TreeChannel> channels;
  channels.reserve(static_cast<std::size_t>(shapes));
  // Across switched nodes the rotations of a tree are images of one another: where that is exact, one
  // rotation per tree stands for all. Mesh nodes' chains follow their searched orders, not rotations.
  const int g = topo.gpus_per_node();
  std::optional<FoldedSends> tree0, tree1;
  if (fold && node_cycles.empty() && shapes == 2 * g && g > 1 && call.nchannels % shapes == 0 && costs.gpu_bytes_per_s == 0.0) {
    tree0 = fold_rotations(low, 0);
    if (tree0) tree1 = fold_rotations(low, 1);
  }
  if (tree0 && tree1) {
    const double weight = call.nchannels / shapes;
    const std::vector<int> identity = chain_order(topo, {0}, {}, 0);
    channels.emplace_back(low, costs, gpu_tree(topo, 0, identity), "tree 0 all rotations", weight, &*tree0);
    channels.emplace_back(low, costs, gpu_tree(topo, 1, identity), "tree 1 all rotations", weight, &*tree1);
  } else {
    for (int s = 0; s < shapes; ++s) {
      double weight = 0;
      for (int c = s; c < call.nchannels; c += shapes) ++weight;
      const int which = s % 2;
      const std::vector<int> order = chain_order(topo, entries, node_cycles, s / 2);
      channels.emplace_back(low, costs, gpu_tree(topo, which, order), fmt::format("tree {} rot {}", which, order.front()),
                            weight, nullptr);
    }
  }
  lower_chunk_loop(low, loop, call.chunks, [&](double bytes) {
    for (TreeChannel& channel : channels) channel.chunk(bytes);
  });
}

}  // namespace ccforge::sim::nccl
