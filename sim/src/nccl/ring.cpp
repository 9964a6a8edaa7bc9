#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "costs.hpp"
#include "copy_folding.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"

namespace ccforge::sim::nccl {
namespace {

// NCCL ring chunking (src/device/all_reduce.h, all_gather.h; src/include/collectives.h
// ALLREDUCE_CHUNKSTEPS NCCL_STEPS/2, ALLREDUCE_SLICESTEPS NCCL_STEPS/4): Simple moves a chunk of
// 4 steps in 2 slices; LL and LL128 one step per chunk.
struct RingChunking {
  double chunk_bytes;
  int slices;
  int steps_per_slice;  // FIFO slots one slice occupies
};
RingChunking ring_chunking(ir::Protocol proto) {
  const double step = static_cast<double>(ir::step_bytes(proto));
  if (proto != ir::Protocol::Simple) return {step, 1, 1};
  constexpr int kChunkSteps = ir::kNcclSteps / 2, kSliceSteps = ir::kNcclSteps / 4;
  return {step * kChunkSteps, kChunkSteps / kSliceSteps, kSliceSteps};
}

// Ring order of channel c: on a direct-link mesh the c-th of the searched rings (sim/mesh_rings.hpp);
// across nodes entering each node at a GPU whose NIC is in service, a different one per channel
// (sim/node_rings.hpp; `entries` its rail_entries), as NCCL's multi-ring search does. Inside one
// switched node all channels share one ring.
std::vector<int> ring_order(const topo::Topology& topo, const std::vector<std::vector<int>>& mesh,
                            const std::vector<int>& entries, int channel) {
  if (!mesh.empty()) return mesh[channel % mesh.size()];
  if (topo.num_nodes() > 1) return multi_node_ring(topo, entries, channel);
  std::vector<int> order(static_cast<std::size_t>(topo.num_gpus()));
  for (int r = 0; r < topo.num_gpus(); ++r) order[static_cast<std::size_t>(r)] = r;
  return order;
}

int ring_steps(ir::Collective coll, int p) { return coll == ir::Collective::AllReduce ? 2 * (p - 1) : p - 1; }

// Bytes of one rank's share in one channel: allreduce cuts its buffer, allgather and reducescatter
// their total (nccl-tests size), into p shares.
double rank_share(const NcclCall& call, int p) { return call.bytes / p / call.nchannels; }

// Per ring position, the folded path of ring 0 standing for rings 0..distinct-1, or nullopt when the
// rings are not exact images of one another (different alphas, links or loads).
std::optional<std::vector<PathId>> fold_rings(Lowering& low, const std::vector<int>& entries, int distinct) {
  const topo::Topology& topo = low.topo();
  const int p = topo.num_gpus();
  std::vector<std::vector<int>> orders;
  for (int c = 0; c < distinct; ++c) orders.push_back(ring_order(topo, {}, entries, c));
  std::vector<std::vector<std::vector<std::uint32_t>>> by_position(p);
  for (int i = 0; i < p; ++i) {
    const topo::Route& r0 = topo.route(orders[0][i], orders[0][(i + 1) % p]);
    for (const auto& order : orders) {
      const topo::Route& r = topo.route(order[i], order[(i + 1) % p]);
      if (r.latency != r0.latency || r.path_class != r0.path_class) return std::nullopt;
      std::vector<std::uint32_t> links;
      for (LinkId l : r.links) links.push_back(l.v);
      by_position[i].push_back(std::move(links));
    }
  }
  const auto folded = fold_copies(topo, by_position);
  if (!folded) return std::nullopt;
  std::vector<PathId> paths;
  for (const auto& links : *folded) paths.push_back(low.graph().add_path(links));
  return paths;
}

// AllReduce, AllGather, ReduceScatter: loops of steps; op (rank, step, slice) forwards what the
// previous rank sent at (step - 1, slice).
// `folded`: per ring position, the path one ring uses to stand for all distinct rings (fold_rings);
// nullptr: this ring's own routes.
void lower_ring_collective(Lowering& low, const NcclCall& call, const ProtocolCosts& costs,
                           const std::vector<int>& order, int channel, double weight,
                           const std::vector<PathId>* folded) {
  const int p = low.topo().num_gpus();
  auto send = [&](int i, double payload, int track, std::uint32_t label, bool with_sync) {
    if (folded == nullptr) {
      return low.add_transfer(order[i], order[(i + 1) % p], payload, costs, track, label, with_sync, weight);
    }
    // As Lowering::add_transfer, on the folded path.
    const SimTime delay = transfer_alpha(costs, low.topo().route(order[i], order[(i + 1) % p]), with_sync);
    return low.add_fabric_op((*folded)[i], payload / costs.wire_efficiency, costs.tb_bytes_per_s, delay, track, label,
                             weight);
  };
  const RingChunking chunking = ring_chunking(call.proto);
  const int steps = ring_steps(call.coll, p);
  const std::uint32_t label = low.graph().add_label("ring step");
  std::vector<int> tracks(p);
  for (int i = 0; i < p; ++i) {
    tracks[i] = low.track(fmt::format("rank {} ch {} x{} (ring{})", order[i], channel, weight,
                                      folded != nullptr ? ", standing for every distinct ring" : ""));
  }
  double remaining = rank_share(call, p);
  std::vector<std::vector<TaskId>> prev_step(p), this_step(p);  // per ring position: slices
  std::vector<SendOrder> order_of(p, SendOrder(chunking.steps_per_slice));
  std::vector<char> net(p);
  for (int i = 0; i < p; ++i) net[i] = crosses_network(low.topo(), order[i], order[(i + 1) % p]);
  while (remaining > 0.0) {
    const double step_bytes = std::min(chunking.chunk_bytes, remaining);
    remaining -= step_bytes;
    const double slice = step_bytes / chunking.slices;
    for (int s = 0; s < steps; ++s) {
      for (int i = 0; i < p; ++i) {
        this_step[i].clear();
        for (int j = 0; j < chunking.slices; ++j) {
          const TaskId t = send(i, slice, tracks[i], label, j == 0);
          order_of[i].chain(low.graph(), t, net[i] != 0);
          if (s > 0) low.graph().depend(prev_step[(i + p - 1) % p][j], t);
          this_step[i].push_back(t);
        }
      }
      std::swap(prev_step, this_step);
    }
  }
}

// Broadcast from the root / reduce to the root: a pipelined chain along the ring, starting (ending) there.
void lower_ring_chain(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, std::vector<int> order,
                      int channel, double weight) {
  const int p = low.topo().num_gpus();
  std::rotate(order.begin(), std::find(order.begin(), order.end(), call.root), order.end());
  const bool to_root = call.coll == ir::Collective::Reduce;
  const RingChunking chunking = ring_chunking(call.proto);
  const std::uint32_t label = low.graph().add_label(to_root ? "reduce hop" : "broadcast hop");
  std::vector<TaskId> prev(p - 1);
  std::vector<SendOrder> order_of(p - 1, SendOrder(chunking.steps_per_slice * chunking.slices));
  std::vector<int> tracks(p);
  for (int i = 0; i < p; ++i) {
    tracks[i] = low.track(fmt::format("rank {} ch {} x{} (chain)", order[i], channel, weight));
  }
  double remaining = call.bytes / call.nchannels;
  while (remaining > 0.0) {
    const double chunk = std::min(chunking.chunk_bytes, remaining);
    remaining -= chunk;
    // Hop h moves the chunk from chain position h to h+1 (towards the root for reduce).
    for (int h = 0; h < p - 1; ++h) {
      const int src = to_root ? order[p - 1 - h] : order[h];
      const int dst = to_root ? order[p - 2 - h] : order[h + 1];
      const TaskId t = low.add_transfer(src, dst, chunk, costs, tracks[to_root ? p - 1 - h : h], label, true, weight);
      order_of[h].chain(low.graph(), t, crosses_network(low.topo(), src, dst));
      if (h > 0) low.graph().depend(prev[h - 1], t);
      prev[h] = t;
    }
  }
}

}  // namespace

void lower_ring(Lowering& low, const NcclCall& call, bool fold) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.arch());
  const bool chain = call.coll == ir::Collective::Broadcast || call.coll == ir::Collective::Reduce;
  const std::vector<std::vector<int>> mesh = mesh_rings(low.topo());
  // Channels with the same ring are identical: simulate one, weighted by how many it stands for.
  const std::vector<int> entries = low.topo().num_nodes() > 1 ? rail_entries(low.topo()) : std::vector<int>{};
  int distinct = low.topo().num_nodes() == 1 ? 1 : std::min(call.nchannels, static_cast<int>(entries.size()));
  if (!mesh.empty()) distinct = std::min(call.nchannels, static_cast<int>(mesh.size()));
  // Across nodes the distinct rings are rotations of one another; where the topology is symmetric under
  // that rotation, one ring stands for all (exact, copy_folding.hpp).
  const bool same_weights = call.nchannels % distinct == 0;
  if (fold && mesh.empty() && !chain && distinct > 1 && same_weights && costs.gpu_bytes_per_s == 0.0) {
    if (const auto folded = fold_rings(low, entries, distinct)) {
      lower_ring_collective(low, call, costs, ring_order(low.topo(), mesh, entries, 0), 0, call.nchannels / distinct, &*folded);
      return;
    }
  }
  for (int c = 0; c < distinct; ++c) {
    double weight = 0;
    for (int k = c; k < call.nchannels; k += distinct) ++weight;
    if (chain)
      lower_ring_chain(low, call, costs, ring_order(low.topo(), mesh, entries, c), c, weight);
    else
      lower_ring_collective(low, call, costs, ring_order(low.topo(), mesh, entries, c), c, weight, nullptr);
  }
}

}  // namespace ccforge::sim::nccl
