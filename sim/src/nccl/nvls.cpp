#include <fmt/core.h>

#include <algorithm>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "nccl_lowering.hpp"

namespace ccforge::sim {

SimTime nvls_step_handoff(SimTime one_way) { return one_way * 4; }

}  // namespace ccforge::sim

namespace ccforge::sim::nccl {

// Multimem operations reach the owner's own memory through the switch too, so the owner's port is
// loaded like every other: ld_reduce loads every sending port plus the owner's receiving port,
// multicast the owner's sending port plus every receiving port.
NvlsPaths nvls_paths(Lowering& low, int first, int count) {
  const topo::Topology& topo = low.topo();
  NvlsPaths paths;
  for (int owner = first; owner < first + count; ++owner) {
    const int other = first + (owner - first + 1) % count;
    std::vector<std::uint32_t> reduce{topo.route(owner, other).links.front().v};
    std::vector<std::uint32_t> mcast{topo.route(other, owner).links.back().v};
    for (int r = first; r < first + count; ++r) {
      if (r == owner) continue;
      for (LinkId l : topo.route(r, owner).links) reduce.push_back(l.v);
      for (LinkId l : topo.route(owner, r).links) mcast.push_back(l.v);
    }
    paths.reduce.push_back(low.add_path(std::move(reduce)));
    paths.multicast.push_back(low.add_path(std::move(mcast)));
  }
  return paths;
}

// NVLS chunk per rank and channel (NCCL v2.18.3 src/enqueue.cc computeColl, NCCL_ALGO_NVLS): 128 KiB,
// shrunk for small calls so every (channel, rank) pair gets several chunks.
double nvls_chunk(double bytes, int nchannels, int nranks) {
  const double concurrent = static_cast<double>(nchannels) * nranks;
  double chunk = 128.0 * 1024;
  if (bytes < 64 * concurrent * chunk) chunk = 64.0 * 1024;
  if (bytes < 8 * concurrent * chunk) chunk = 32.0 * 1024;
  if (bytes < 2 * concurrent * chunk) chunk = 16.0 * 1024;
  return chunk;
}

// One NVLS step of the reduce warps (NCCL v2.18.3 src/collectives/device/prims_simple.h, recvSend with
// multimem source and destination): waitPeer polls the step flags of every rank with one
// multimem.ld_reduce.min (NvlsMinPolling), then the chunk's ld_reduce/st stream, then postPeer's
// fence_acq_rel_sys waits for those multimem accesses to complete. Poll and fence are each a multimem
// round trip, requester -> switch -> every GPU -> switch -> requester: two GPU-to-GPU route latencies.
// The scatter warps fill the next steps' slots (NCCL_STEPS deep) meanwhile, so no producer/consumer
// wait like a ring step's Simple sync is exposed per step.
SimTime nvls_step_handoff(const topo::Topology& topo, int first, int count) {
  return sim::nvls_step_handoff(topo.route(first, count > 1 ? first + 1 : first).latency);
}

void lower_nvls(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = protocol_costs(low.params(), ir::Protocol::Simple, low.arch());
  const double efficiency = low.params().of(low.arch()).nvls_efficiency.value();
  const int p = low.topo().num_gpus();
  // The reduce and multicast tracks carry one step's loads and stores one step apart; each op waits the
  // step's full handoff, so a step lasts handoff + transfer as the warps that do both.
  const SimTime delay = nvls_step_handoff(low.topo(), 0, p);
  const bool reduce = call.coll != ir::Collective::AllGather;
  const bool gather = call.coll != ir::Collective::ReduceScatter;
  const NvlsPaths paths = nvls_paths(low, 0, p);
  const double chunk_size = nvls_chunk(call.bytes, call.nchannels, p);
  const std::uint32_t reduce_label = low.graph().add_label("nvls ld_reduce");
  const std::uint32_t mcast_label = low.graph().add_label("nvls multicast");
  // Every channel does the same: simulate one, weighted by the channel count.
  const double weight = call.nchannels;
  {
    for (int r = 0; r < p; ++r) {
      const int rtrack = low.track(fmt::format("rank {} ch 0 x{} (nvls reduce)", r, call.nchannels));
      const int mtrack = low.track(fmt::format("rank {} ch 0 x{} (nvls multicast)", r, call.nchannels));
      double remaining = call.bytes / p / call.nchannels;
      TaskId last_reduce = 0, last_mcast = 0;
      bool started = false;
      while (remaining > 0.0) {
        const double chunk = std::min(chunk_size, remaining);
        remaining -= chunk;
        const double wire = chunk / efficiency;
        TaskId reduced = 0;
        if (reduce) {
          reduced = low.add_fabric_op(paths.reduce[r], wire, costs.tb_bytes_per_s, delay, rtrack, reduce_label, weight);
          if (started) low.graph().depend(last_reduce, reduced);
          last_reduce = reduced;
        }
        if (gather) {
          const TaskId m =
              low.add_fabric_op(paths.multicast[r], wire, costs.tb_bytes_per_s, delay, mtrack, mcast_label, weight);
          if (reduce) low.graph().depend(reduced, m);
          if (started) low.graph().depend(last_mcast, m);
          last_mcast = m;
        }
        started = true;
      }
    }
  }
}

}  // namespace ccforge::sim::nccl
