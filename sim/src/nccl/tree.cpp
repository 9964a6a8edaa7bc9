#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "chunk_loop.hpp"
#include "copy_folding.hpp"
#include "costs.hpp"
#include "net/transport_costs.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"
#include "trees.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {
namespace {

// Folded paths of one tree standing for its rotations, keyed by (src, dst) of its sends.
using FoldedSends = std::map<std::pair<int, int>, PathId>;

// NCCL's tree thread split (src/device/all_reduce.h runTreeSplit, the same rule at v2.18.3-1, v2.21.5-1 and
// v2.26.2-1): a rank with a parent runs its reduce-up and its broadcast-down on two thread groups of the
// channel's block at once; the root runs both in one op on all threads. Each half's threadblock rate is its
// share of the threads a ring channel moves sim.tb_bw with.
struct TreeSplit {
  double up = 1.0;    // of sim.tb_bw, a non-root rank's sends to its parent
  double down = 1.0;  // of sim.tb_bw, a non-root rank's sends to its children
};

TreeSplit tree_split(ir::Protocol proto, const topo::Topology& topo) {
  if (msccl_runtime(topo) == ir::Runtime::Rccl) return {};  // RCCL's tree kernel is not re-read here
  constexpr double kWarp = 32;
  // The tree's block: NCCL_MAX_NTHREADS 640 (v2.26.2-1 src/enqueue.cc topoGetAlgoInfo "Tree now uses all
  // threads always"; v2.18.3-1 and v2.21.5-1: NCCL_SIMPLE_MAX_NTHREADS 512 plus the split's 4 sync warps for
  // Simple, NCCL_LL128_MAX_NTHREADS 640 for LL128, at the sizes where the rate matters).
  constexpr double kTreeThreads = 640;
  switch (proto) {
    case ir::Protocol::Simple: {
      // runTreeSplit: nthreads / 2, + 64 from 256: 384 reduce, 256 broadcast threads, each group less its sync
      // warp (src/device/prims_simple.h nworkers, NCCL_SIMPLE_EXTRA_GROUP_IF_NTHREADS_GE 96), against the
      // 512 workers of a ring channel (NCCL_SIMPLE_MAX_NTHREADS 512 plus the ring's own sync warp).
      const double reduce = kTreeThreads / 2 + 64;
      constexpr double kRingWorkers = 512;
      return {(reduce - kWarp) / kRingWorkers, (kTreeThreads - reduce - kWarp) / kRingWorkers};
    }
    case ir::Protocol::LL128: {
      // runTreeSplit: 70 % of the warps, rounded down, reduce (14 of 20), the rest broadcast (6), against the
      // 20 warps of a ring channel (NCCL_LL128_MAX_NTHREADS 640); each warp moves 2 KiB of lines per pass
      // (src/device/prims_ll128.h WireWordPerSlice).
      const double warps = kTreeThreads / kWarp;
      const double reduce = std::floor(warps * 7 / 10);
      return {reduce / warps, (warps - reduce) / warps};
    }
    default:
      // LL splits its threads the same way, but sim.tb_bw.LL is the GPU's whole LL rate (llMaxBws) over 16
      // channels, not a per-thread rate: the split's halves are not what bounds it.
      return {};
  }
}

ProtocolCosts scaled_tb(ProtocolCosts costs, double share) {
  costs.tb_bytes_per_s *= share;
  return costs;
}

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
  TreeChannel(Lowering& low, const ProtocolCosts& costs, TreeSplit split, GpuTree tree, const std::string& name,
              double weight, const FoldedSends* folded)
      : low_(low),
        costs_(costs),
        up_costs_(scaled_tb(costs, split.up)),
        down_costs_(scaled_tb(costs, split.down)),
        tree_(std::move(tree)),
        weight_(weight),
        folded_(folded) {
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
      const TaskId t = send(r, parent, chunk, up_costs_, tracks_[r], up_label_);
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
        const TaskId t = send(r, kids[k], chunk, r == tree_.root ? costs_ : down_costs_, tracks_[r], down_label_);
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
  TaskId send(int src, int dst, double payload, const ProtocolCosts& costs, int track, std::uint32_t label) {
    const TaskId t =
        folded_ == nullptr
            ? low_.add_transfer(src, dst, payload, costs, track, label, true, weight_)
            // As Lowering::add_transfer, on the folded path.
            : low_.add_fabric_op(folded_->at({src, dst}), payload / costs.wire_efficiency,
                                 low_.send_rate_cap(src, dst, payload / costs.wire_efficiency, costs),
                                 transfer_alpha(costs, low_.topo().route(src, dst)), track, label, weight_);
    low_.set_chunk(t, static_cast<int>(index_));
    return t;
  }

  std::size_t slot_of(int rank, std::size_t slot) const {
    return static_cast<std::size_t>(rank) * ir::kNcclSteps + slot;
  }
  const std::vector<TaskId>& down_sent(int rank, std::size_t slot) const { return down_sent_[slot_of(rank, slot)]; }

  Lowering& low_;
  ProtocolCosts costs_;                    // the root's: both halves on all threads
  ProtocolCosts up_costs_, down_costs_;    // a non-root rank's halves (TreeSplit)
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

// Tree 0 with rotation 0 standing for the copies `images` maps it onto (each a map of ranks: tree 0's
// rotations, and with the mirror tree 1's too); nullopt unless that is exact (copy_folding.hpp).
std::optional<FoldedSends> fold_images(Lowering& low, const GpuTree& tree,
                                       const std::vector<std::function<int(int)>>& images) {
  const topo::Topology& topo = low.topo();
  std::vector<std::pair<int, int>> sends;
  for (int r = 0; r < topo.num_gpus(); ++r) {
    if (tree.parent[r] >= 0) sends.emplace_back(r, tree.parent[r]);
    for (int c : tree.children[r]) sends.emplace_back(r, c);
  }
  std::vector<std::vector<std::vector<std::uint32_t>>> by_send;
  for (const auto& [src, dst] : sends) {
    const topo::Route& r0 = topo.route(src, dst);
    by_send.emplace_back();
    for (const auto& image : images) {
      const topo::Route& r = topo.route(image(src), image(dst));
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
  const double step = call.proto == ir::Protocol::Simple ? net::simple_step_bytes(topo) : static_cast<double>(ir::step_bytes(call.proto));
  const bool rccl = msccl_runtime(topo) == ir::Runtime::Rccl;
  if (call.proto != ir::Protocol::Simple || (!rccl && !chunks_before_2_20(params)))
    return step;
  const double depth = topo.gpus_per_node() - 1 + log2_floor(topo.num_nodes());
  return halved_chunk(call.bytes, call.nchannels, step, {{depth * 8, 131072}, {depth * 4, 65536}, {depth, 32768}});
}

// Whether tree 1 is tree 0 under `mirror`: every rank's parent and children map onto its image's.
bool mirrors(const GpuTree& t0, const GpuTree& t1, const std::function<int(int)>& mirror) {
  auto image = [&](int r) { return r < 0 ? -1 : mirror(r); };
  for (std::size_t r = 0; r < t0.parent.size(); ++r) {
    const int m = mirror(static_cast<int>(r));
    if (t1.parent[static_cast<std::size_t>(m)] != image(t0.parent[r])) return false;
    std::vector<int> kids;
    for (int c : t0.children[r]) kids.push_back(mirror(c));
    std::vector<int> theirs = t1.children[static_cast<std::size_t>(m)];
    std::sort(kids.begin(), kids.end());
    std::sort(theirs.begin(), theirs.end());
    if (kids != theirs) return false;
  }
  return true;
}


// Whether the mirror is a symmetry of the links the trees use: one map of links carries every route of
// tree 0's rotations onto the route of its mirror image, link for link, no two links onto one. Equal
// loads per class of links (fold_copies) do not suffice: across pods a route's spine follows the
// destination's index, which the mirror does not preserve.
bool mirror_maps_links(const topo::Topology& topo, const GpuTree& tree, const std::vector<std::function<int(int)>>& rotations,
                       const std::function<int(int)>& mirror) {
  std::map<std::uint32_t, std::uint32_t> image, preimage;
  auto maps = [&](int src, int dst) {
    const topo::Route& a = topo.route(src, dst);
    const topo::Route& b = topo.route(mirror(src), mirror(dst));
    if (a.links.size() != b.links.size()) return false;
    for (std::size_t k = 0; k < a.links.size(); ++k) {
      const auto [fwd, new_fwd] = image.try_emplace(a.links[k].v, b.links[k].v);
      const auto [back, new_back] = preimage.try_emplace(b.links[k].v, a.links[k].v);
      if (fwd->second != b.links[k].v || back->second != a.links[k].v) return false;
    }
    return true;
  };
  for (const auto& rotate : rotations)
    for (std::size_t r = 0; r < tree.parent.size(); ++r) {
      const int src = rotate(static_cast<int>(r));
      if (tree.parent[r] >= 0 && !maps(src, rotate(tree.parent[r]))) return false;
      for (int c : tree.children[r])
        if (!maps(src, rotate(c))) return false;
    }
  return true;
}

// The trees of lower_tree's channels where rotations (and, over an even node count, the mirror) fold.
struct FoldedTree {
  GpuTree tree;
  std::string name;
  FoldedSends sends;
};

// Tree 0 and tree 1, each with rotation 0 standing for all ppn rotations (their images under rotating
// the local GPUs and rails); over an even node count tree 1 is tree 0 mirrored (node n -> nodes - 1 - n,
// trees.hpp), so where that is exact too tree 0 alone stands for both trees' channels. Empty unless
// the rotations fold exactly.
std::vector<FoldedTree> fold_trees(Lowering& low) {
  const topo::Topology& topo = low.topo();
  const int g = topo.gpus_per_node();
  const int n = topo.num_nodes();
  auto rotate = [g](int rank, int by) { return rank / g * g + (rank % g + by) % g; };
  auto mirror = [g, n](int rank) { return (n - 1 - rank / g) * g + rank % g; };
  const std::vector<int> identity = chain_order(topo, {0}, {}, 0);
  GpuTree t0 = gpu_tree(topo, 0, identity), t1 = gpu_tree(topo, 1, identity);
  std::vector<std::function<int(int)>> rotations;
  for (int by = 0; by < g; ++by) rotations.push_back([=](int r) { return rotate(r, by); });
  if (n % 2 == 0 && mirrors(t0, t1, mirror) && mirror_maps_links(topo, t0, rotations, mirror)) {
    std::vector<std::function<int(int)>> both = rotations;
    for (int by = 0; by < g; ++by) both.push_back([=](int r) { return mirror(rotate(r, by)); });
    if (auto sends = fold_images(low, t0, both)) return {{std::move(t0), "trees 0 and 1 all rotations", std::move(*sends)}};
  }
  auto sends0 = fold_images(low, t0, rotations);
  if (!sends0) return {};
  auto sends1 = fold_images(low, t1, rotations);
  if (!sends1) return {};
  std::vector<FoldedTree> out;
  out.push_back({std::move(t0), "tree 0 all rotations", std::move(*sends0)});
  out.push_back({std::move(t1), "tree 1 all rotations", std::move(*sends1)});
  return out;
}

}  // namespace

std::uint64_t tree_chunks(const NcclCall& call, const topo::Topology& topo, const SimConstants& params) {
  return chunk_loop(call.bytes / call.nchannels, tree_chunk_bytes(call, topo, params)).count;
}

void lower_tree(Lowering& low, const NcclCall& call, bool fold) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.topo());
  const topo::Topology& topo = low.topo();
  const TreeSplit split = tree_split(call.proto, topo);
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
  // Across switched nodes the rotations of a tree are images of one another, and the two trees mirror
  // images: where that is exact, one rotation stands for all (fold_trees). Mesh nodes' chains follow
  // their searched orders, not rotations.
  const int g = topo.gpus_per_node();
  std::vector<FoldedTree> folded;
  if (fold && node_cycles.empty() && shapes == 2 * g && g > 1 && call.nchannels % shapes == 0 && costs.gpu_bytes_per_s == 0.0)
    folded = fold_trees(low);
  if (!folded.empty()) {
    for (const FoldedTree& f : folded)
      channels.emplace_back(low, costs, split, f.tree, f.name, call.nchannels / shapes, &f.sends);
  } else {
    for (int s = 0; s < shapes; ++s) {
      double weight = 0;
      for (int c = s; c < call.nchannels; c += shapes) ++weight;
      const int which = s % 2;
      const std::vector<int> order = chain_order(topo, entries, node_cycles, s / 2);
      channels.emplace_back(low, costs, split, gpu_tree(topo, which, order),
                            fmt::format("tree {} rot {}", which, order.front()), weight, nullptr);
    }
  }
  lower_chunk_loop(low, loop, call.chunks, [&](double bytes) {
    for (TreeChannel& channel : channels) channel.chunk(bytes);
  });
}

}  // namespace ccforge::sim::nccl
