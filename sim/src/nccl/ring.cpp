#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"

namespace ccforge::sim::nccl {
namespace {

// NCCL ring chunking (src/device/all_reduce.h, all_gather.h; buffer sizes from src/init.cc): Simple
// moves a chunk of 4 steps of 512 KiB in 2 slices; LL and LL128 one step per chunk.
struct RingChunking {
  double chunk_bytes;
  int slices;
  int steps_per_slice;  // FIFO slots one slice occupies
};
RingChunking ring_chunking(ir::Protocol proto) {
  switch (proto) {
    case ir::Protocol::Simple:
      return {4.0 * 512 * 1024, 2, 2};
    case ir::Protocol::LL:
      return {32.0 * 1024, 1, 1};
    case ir::Protocol::LL128:
      return {576000.0, 1, 1};
  }
  return {4.0 * 512 * 1024, 2, 2};
}

// Ring order of channel c: node by node; across nodes the local GPUs are rotated by c so channels leave
// each node from different GPUs (and thus NICs), as NCCL's multi-ring search does. Inside one node all
// channels share one ring.
std::vector<int> ring_order(const topo::Topology& topo, int channel) {
  const int g = topo.gpus_per_node();
  if (topo.num_nodes() == 1) channel = 0;
  std::vector<int> order;
  order.reserve(topo.num_gpus());
  for (int node = 0; node < topo.num_nodes(); ++node) {
    for (int i = 0; i < g; ++i) order.push_back(node * g + (i + channel) % g);
  }
  return order;
}

int ring_steps(ir::Collective coll, int p) { return coll == ir::Collective::AllReduce ? 2 * (p - 1) : p - 1; }

// Bytes of one rank's share in one channel: allreduce cuts its buffer, allgather and reducescatter
// their total (nccl-tests size), into p shares.
double rank_share(const NcclCall& call, int p) { return call.bytes / p / call.nchannels; }

// AllReduce, AllGather, ReduceScatter: loops of steps; op (rank, step, slice) forwards what the
// previous rank sent at (step - 1, slice).
void lower_ring_collective(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, int channel,
                           double weight) {
  const int p = low.topo().num_gpus();
  const std::vector<int> order = ring_order(low.topo(), channel);
  const RingChunking chunking = ring_chunking(call.proto);
  const int steps = ring_steps(call.coll, p);
  const std::uint32_t label = low.graph().add_label("ring step");
  std::vector<int> tracks(p);
  for (int i = 0; i < p; ++i) {
    tracks[i] = low.track(fmt::format("rank {} ch {} x{} (ring)", order[i], channel, weight));
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
          const TaskId t =
              low.add_transfer(order[i], order[(i + 1) % p], slice, costs, tracks[i], label, j == 0, weight);
          order_of[i].chain(low.graph(), t, net[i] != 0);
          if (s > 0) low.graph().depend(prev_step[(i + p - 1) % p][j], t);
          this_step[i].push_back(t);
        }
      }
      std::swap(prev_step, this_step);
    }
  }
}

// Broadcast from rank 0 / reduce to rank 0: a pipelined chain along the ring.
void lower_ring_chain(Lowering& low, const NcclCall& call, const ProtocolCosts& costs, int channel, double weight) {
  const int p = low.topo().num_gpus();
  std::vector<int> order = ring_order(low.topo(), channel);
  std::rotate(order.begin(), std::find(order.begin(), order.end(), 0), order.end());
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

void lower_ring(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.arch());
  const bool chain = call.coll == ir::Collective::Broadcast || call.coll == ir::Collective::Reduce;
  // Channels with the same ring are identical: simulate one, weighted by how many it stands for.
  const int distinct = low.topo().num_nodes() == 1 ? 1 : std::min(call.nchannels, low.topo().gpus_per_node());
  for (int c = 0; c < distinct; ++c) {
    double weight = 0;
    for (int k = c; k < call.nchannels; k += distinct) ++weight;
    if (chain)
      lower_ring_chain(low, call, costs, c, weight);
    else
      lower_ring_collective(low, call, costs, c, weight);
  }
}

}  // namespace ccforge::sim::nccl
