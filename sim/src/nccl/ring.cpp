#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "chunk_loop.hpp"
#include "costs.hpp"
#include "net/transport_costs.hpp"
#include "nccl_lowering.hpp"
#include "ring_folding.hpp"
#include "send_order.hpp"

namespace ccforge::sim::nccl {
namespace {

// NCCL ring chunking (src/device/all_reduce.h, all_gather.h; src/include/collectives.h
// ALLREDUCE_CHUNKSTEPS NCCL_STEPS/2, ALLREDUCE_SLICESTEPS NCCL_STEPS/4): Simple moves a chunk of
// 4 steps in 2 slices; LL and LL128 one step per chunk. Broadcast and reduce (BROADCAST_/REDUCE_
// CHUNKSTEPS and SLICESTEPS 1, the same at v2.18.3-1 and v2.26.2-1) move one step per chunk in every
// protocol; RCCL then halves a Simple chain's chunk while a channel would get fewer than 64 / 32 / 16 / 8
// chunks, down to 256 / 128 / 64 / 32 KiB (ROCm/rccl @0cbce2a src/enqueue.cc computeCollChunkInfo,
// ncclPatternPipelineFrom/To).
struct RingChunking {
  double chunk_bytes;
  int slices;
  int steps_per_slice;  // FIFO slots one slice occupies
};

bool is_chain(ir::Collective coll) { return coll == ir::Collective::Broadcast || coll == ir::Collective::Reduce; }

RingChunking ring_chunking(const NcclCall& call, const topo::Topology& topo) {
  const double step = call.proto == ir::Protocol::Simple ? net::simple_step_bytes(topo) : static_cast<double>(ir::step_bytes(call.proto));
  if (call.proto != ir::Protocol::Simple) return {step, 1, 1};
  if (!is_chain(call.coll)) {
    constexpr int kChunkSteps = ir::kNcclSteps / 2, kSliceSteps = ir::kNcclSteps / 4;
    return {step * kChunkSteps, kChunkSteps / kSliceSteps, kSliceSteps};
  }
  if (msccl_runtime(topo) != ir::Runtime::Rccl) return {step, 1, 1};
  return {halved_chunk(call.bytes, call.nchannels, step, {{64, 262144}, {32, 131072}, {16, 65536}, {8, 32768}}), 1, 1};
}

// Ring order of channel c: on a direct-link mesh the c-th of the searched rings (sim/mesh_rings.hpp);
// across nodes entering each node at a GPU whose NIC is in service, a different one per channel, and on
// mesh nodes crossing each node along a different searched cycle (sim/node_rings.hpp; `entries` its
// rail_entries, `node_cycles` node_mesh_rings), as NCCL's multi-ring search does. Inside one switched
// node all channels share one ring.
std::vector<int> ring_order(const topo::Topology& topo, const std::vector<std::vector<int>>& mesh,
                            const std::vector<int>& entries, const std::vector<std::vector<int>>& node_cycles, int channel) {
  if (!mesh.empty()) return mesh[channel % mesh.size()];
  if (topo.num_nodes() > 1) return multi_node_ring(topo, entries, node_cycles, channel);
  std::vector<int> order(static_cast<std::size_t>(topo.num_gpus()));
  for (int r = 0; r < topo.num_gpus(); ++r) order[static_cast<std::size_t>(r)] = r;
  return order;
}

int ring_steps(ir::Collective coll, int p) { return coll == ir::Collective::AllReduce ? 2 * (p - 1) : p - 1; }

// Bytes of one rank's share in one channel: allreduce cuts its buffer, allgather and reducescatter
// their total (nccl-tests size), into p shares.
double rank_share(const NcclCall& call, int p) { return call.bytes / p / call.nchannels; }

// AllReduce, AllGather, ReduceScatter, one channel: per chunk a loop of steps; op (rank, step, slice)
// forwards what the previous rank sent at (step - 1, slice).
// `folded`: the ring runs only its first `positions` positions, each on its folded path, the first
// waiting for the last as for the previous block's (ring_folding.hpp); nullptr: every position on its
// own route.
class RingChannel {
 public:
  struct Folded {
    int positions;
    const std::vector<PathId>* paths;
    std::string stands_for;  // for the trace tracks
  };

  RingChannel(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, std::vector<int> order, int channel,
              double weight, const Folded* folded)
      : low_(low),
        costs_(costs),
        order_(std::move(order)),
        positions_(folded != nullptr ? folded->positions : static_cast<int>(order_.size())),
        weight_(weight),
        folded_paths_(folded != nullptr ? folded->paths : nullptr),
        chunking_(ring_chunking(call, low.topo())),
        steps_(ring_steps(call.coll, low.topo().num_gpus())) {
    const int p = static_cast<int>(order_.size());
    label_ = low.graph().add_label("ring step");
    tracks_.resize(positions_);
    for (int i = 0; i < positions_; ++i) {
      tracks_[i] = low.track(fmt::format("rank {} ch {} x{} (ring{})", order_[i], channel, weight,
                                         folded != nullptr ? folded->stands_for : ""));
    }
    prev_step_.resize(positions_);
    this_step_.resize(positions_);
    order_of_.assign(positions_, SendOrder(chunking_.steps_per_slice));
    net_.resize(positions_);
    for (int i = 0; i < positions_; ++i) net_[i] = crosses_network(low.topo(), order_[i], order_[(i + 1) % p]);
  }

  void chunk(double step_bytes) {
    const int q = positions_;
    const double slice = step_bytes / chunking_.slices;
    for (int s = 0; s < steps_; ++s) {
      for (int i = 0; i < q; ++i) {
        this_step_[i].clear();
        for (int j = 0; j < chunking_.slices; ++j) {
          const TaskId t = send(i, slice, j == 0);
          order_of_[i].chain(low_.graph(), t, net_[i] != 0);
          if (s > 0) low_.graph().depend(prev_step_[(i + q - 1) % q][j], t);
          this_step_[i].push_back(t);
        }
      }
      std::swap(prev_step_, this_step_);
    }
  }

 private:
  TaskId send(int i, double payload, bool with_sync) {
    const int p = static_cast<int>(order_.size());
    const int next = order_[(i + 1) % p];
    if (folded_paths_ == nullptr) {
      return low_.add_transfer(order_[i], next, payload, costs_, tracks_[i], label_, with_sync, weight_);
    }
    // As Lowering::add_transfer, on the folded path.
    const SimTime delay = transfer_alpha(costs_, low_.topo().route(order_[i], next), with_sync);
    const double wire = payload / costs_.wire_efficiency;
    return low_.add_fabric_op((*folded_paths_)[i], wire, low_.send_rate_cap(order_[i], next, wire, costs_), delay,
                              tracks_[i], label_, weight_);
  }

  Lowering& low_;
  ProtocolCosts costs_;
  std::vector<int> order_;  // the whole ring
  int positions_;           // ring positions run
  double weight_;
  const std::vector<PathId>* folded_paths_;
  RingChunking chunking_;
  int steps_;
  std::uint32_t label_ = 0;
  std::vector<int> tracks_;
  std::vector<std::vector<TaskId>> prev_step_, this_step_;  // per ring position: slices
  std::vector<SendOrder> order_of_;
  std::vector<char> net_;
};

// Broadcast from the root / reduce to the root, one channel: a pipelined chain along the ring, starting
// (ending) there.
class ChainChannel {
 public:
  ChainChannel(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, std::vector<int> order, int channel,
               double weight)
      : low_(low), costs_(costs), order_(std::move(order)), weight_(weight), to_root_(call.coll == ir::Collective::Reduce) {
    const int p = low.topo().num_gpus();
    std::rotate(order_.begin(), std::find(order_.begin(), order_.end(), call.root), order_.end());
    const RingChunking chunking = ring_chunking(call, low.topo());
    label_ = low.graph().add_label(to_root_ ? "reduce hop" : "broadcast hop");
    prev_.resize(p - 1);
    order_of_.assign(p - 1, SendOrder(chunking.steps_per_slice * chunking.slices));
    tracks_.resize(p);
    for (int i = 0; i < p; ++i) tracks_[i] = low.track(fmt::format("rank {} ch {} x{} (chain)", order_[i], channel, weight));
  }

  void chunk(double chunk) {
    const int p = static_cast<int>(order_.size());
    // Hop h moves the chunk from chain position h to h+1 (towards the root for reduce).
    for (int h = 0; h < p - 1; ++h) {
      const int src = to_root_ ? order_[p - 1 - h] : order_[h];
      const int dst = to_root_ ? order_[p - 2 - h] : order_[h + 1];
      const TaskId t =
          low_.add_transfer(src, dst, chunk, costs_, tracks_[to_root_ ? p - 1 - h : h], label_, true, weight_);
      order_of_[h].chain(low_.graph(), t, crosses_network(low_.topo(), src, dst));
      if (h > 0) low_.graph().depend(prev_[h - 1], t);
      prev_[h] = t;
    }
  }

 private:
  Lowering& low_;
  ProtocolCosts costs_;
  std::vector<int> order_;
  double weight_;
  bool to_root_;
  std::uint32_t label_ = 0;
  std::vector<TaskId> prev_;
  std::vector<SendOrder> order_of_;
  std::vector<int> tracks_;
};

// The chunk loop of one channel: a chain moves the channel's whole buffer, a ring each rank's share.
ChunkLoop ring_loop(const NcclCall& call, const topo::Topology& topo) {
  const double chunk = ring_chunking(call, topo).chunk_bytes;
  return chunk_loop(is_chain(call.coll) ? call.bytes / call.nchannels : rank_share(call, topo.num_gpus()), chunk);
}

// The fold of the distinct rings (ring_folding.hpp), or nullopt to run each on its own routes.
// `merge`: all rings into ring 0, which runs with their common weight.
std::optional<RingFold> fold_distinct_rings(Lowering& low, const ProtocolCosts& costs,
                                            const std::vector<std::vector<int>>& orders, bool& merge) {
  if (merge) {
    if (auto fold = fold_ring(low, costs, orders, true)) return fold;
    merge = false;
  }
  return fold_ring(low, costs, orders, false);
}

}  // namespace

std::uint64_t ring_chunks(const NcclCall& call, const topo::Topology& topo) { return ring_loop(call, topo).count; }

void lower_ring(Lowering& low, const NcclCall& call, bool fold) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.topo());
  const bool chain = is_chain(call.coll);
  const std::vector<std::vector<int>> mesh = mesh_rings(low.topo());
  const ChunkLoop loop = ring_loop(call, low.topo());
  // Channels with the same ring are identical: simulate one, weighted by how many it stands for.
  const std::vector<int> entries = low.topo().num_nodes() > 1 ? rail_entries(low.topo()) : std::vector<int>{};
  const std::vector<std::vector<int>> node_cycles = node_mesh_rings(low.topo(), entries);
  int distinct = low.topo().num_nodes() == 1 ? 1 : std::min(call.nchannels, multi_node_ring_count(entries, node_cycles));
  if (!mesh.empty()) distinct = std::min(call.nchannels, static_cast<int>(mesh.size()));
  std::vector<std::vector<int>> orders;
  std::vector<double> weights;
  for (int c = 0; c < distinct; ++c) {
    orders.push_back(ring_order(low.topo(), mesh, entries, node_cycles, c));
    double weight = 0;
    for (int k = c; k < call.nchannels; k += distinct) ++weight;
    weights.push_back(weight);
  }
  std::vector<RingChannel> rings;
  std::vector<ChainChannel> chains;
  // Across nodes the distinct rings are rotations of one another, and each ring is made of blocks of
  // nodes that are images of one another where the fabric repeats; where that is exact, the first block
  // of one ring stands for all (ring_folding.hpp). The chain is not rotation-invariant.
  bool merge = distinct > 1 && call.nchannels % distinct == 0;
  std::optional<RingFold> folded;
  if (fold && mesh.empty() && !chain && low.topo().num_nodes() > 1) {
    folded = fold_distinct_rings(low, costs, orders, merge);
  }
  std::vector<RingChannel::Folded> runs;  // stable: the rings keep pointers into it
  if (folded) {
    const int copies = low.topo().num_nodes() / folded->block_nodes;
    std::string stands_for = merge ? fmt::format(", standing for {} distinct rings", distinct) : std::string();
    if (copies > 1) stands_for += fmt::format(", blocks of {} nodes standing for {}", folded->block_nodes, copies);
    for (const std::vector<PathId>& paths : folded->paths) runs.push_back({folded->positions, &paths, stands_for});
  }
  if (folded && merge) {
    rings.emplace_back(low, call, costs, orders[0], 0, call.nchannels / distinct, &runs[0]);
  } else {
    for (int c = 0; c < distinct; ++c) {
      const auto k = static_cast<std::size_t>(c);
      if (chain)
        chains.emplace_back(low, call, costs, orders[k], c, weights[k]);
      else
        rings.emplace_back(low, call, costs, orders[k], c, weights[k], folded ? &runs[k] : nullptr);
    }
  }
  lower_chunk_loop(low, loop, call.chunks, [&](double bytes) {
    for (RingChannel& ring : rings) ring.chunk(bytes);
    for (ChainChannel& c : chains) c.chunk(bytes);
  });
}

}  // namespace ccforge::sim::nccl
