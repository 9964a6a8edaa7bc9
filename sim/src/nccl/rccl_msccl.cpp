// RCCL's own path for allreduce on one MI300X node: before its NCCL-derived tuning model, RCCL runs
// the MSCCL all-pairs algorithms it ships. Read (not copied) from ROCm/rccl @0cbce2a7 (2024-10-24):
// - src/graph/rome_models.cc rome_model_79: 8 GPUs, 7 links each, every pair joined (connMatrix all
//   ones off the diagonal), options "mscclEnabled=1": the node the MSCCL algorithms are enabled on.
// - src/misc/msccl/msccl_lifecycle.cc mscclEnqueueCheck: MSCCL++ (allreduce <= RCCL_MSCCLPP_THRESHOLD,
//   1 MiB, src/init.cc) only runs while the stream is captured into a graph; outside a graph (nccl-tests
//   and rccl-tests without -G) the bundled MSCCL algorithm whose [minBytes, maxBytes] holds the call
//   runs when count % nchunksperloop == 0 (mscclInternalSchedulerSelectAlgo), otherwise RCCL's tuning.
// - tools/msccl-algorithms/allreduce-allpairs-8n-{ll-32tb,ll-64tb,simple}-op.xml (out-of-place; the
//   in-place files differ only in the Simple range): all pairs, one threadblock per peer and channel.
#include <fmt/core.h>

#include <cmath>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "rccl_msccl.hpp"

namespace ccforge::sim::nccl {
namespace {

struct BundledAllPairs {
  double min_bytes;
  double max_bytes;
  ir::Protocol proto;
  int nchannels;
  int chunks_per_loop;
};

// The out-of-place allreduce files' <algo> attributes (minBytes, maxBytes, proto, nchannels, nchunksperloop).
constexpr BundledAllPairs kBundled[] = {
    {0, 65536, ir::Protocol::LL, 4, 256},                // allreduce-allpairs-8n-ll-32tb-op.xml
    {65537, 524287, ir::Protocol::LL, 8, 512},           // allreduce-allpairs-8n-ll-64tb-op.xml
    {524288, 16777216, ir::Protocol::Simple, 8, 512},    // allreduce-allpairs-8n-simple-op.xml
};
constexpr int kModelGpus = 8;  // rome_model_79 .nGpus
// nccl_choose does not see the element type; nccl-tests' sizes are checked as 4-byte (float) elements.
constexpr double kAssumedElementBytes = 4;

// The 8 GPUs of `node` are CDNA3 and every pair is joined by one xGMI link (connMatrix all ones off the
// diagonal, nLinks 7: rome_model_79, 81 and 84).
bool xgmi_mesh_node(const topo::Topology& topo, int node) {
  if (topo.gpus_per_node() != kModelGpus) return false;
  const int first = node * kModelGpus;
  for (int a = first; a < first + kModelGpus; ++a) {
    if (topo.gpu(a).model->arch != topo::GpuArch::Cdna3) return false;
    for (int b = first; b < first + kModelGpus; ++b) {
      if (a == b) continue;
      const topo::Route& r = topo.route(a, b);
      if (r.links.size() != 1 || topo.link(r.links.front()).kind != topo::LinkKind::Xgmi) return false;
    }
  }
  return true;
}

}  // namespace

bool rccl_msccl_node(const topo::Topology& topo) { return topo.num_nodes() == 1 && xgmi_mesh_node(topo, 0); }

// rome_model_81 (8 NICs) and rome_model_84 (16 NICs) are that node with a NIC behind every GPU's PCIe
// switch; cluster files repeat one node, so node 0 stands for all.
bool rccl_tuned_cluster(const topo::Topology& topo) {
  if (topo.num_nodes() < 2 || !xgmi_mesh_node(topo, 0)) return false;
  for (int a = 0; a < kModelGpus; ++a)
    if (!topo.gpu(a).nearest_nic) return false;
  return true;
}

std::optional<NcclChoice> rccl_msccl_choice(const topo::Topology& topo, ir::Collective coll, double bytes) {
  if (coll != ir::Collective::AllReduce || !rccl_msccl_node(topo)) return std::nullopt;
  for (const BundledAllPairs& b : kBundled) {
    const double count = bytes / kAssumedElementBytes;
    const bool whole_loops = count >= 1 && std::fmod(count, b.chunks_per_loop) == 0;
    if (bytes >= b.min_bytes && bytes <= b.max_bytes && whole_loops)
      return NcclChoice{NcclAlgo::AllPairs, b.proto, b.nchannels, 0.0};
  }
  return std::nullopt;
}

void lower_all_pairs(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = msccl_protocol_costs(low.params(), call.proto, low.topo(), ir::Runtime::Rccl);
  const SimTime handoff = msccl_runtime_costs(low.params(), ir::Runtime::Rccl).dep_handoff;
  const int p = low.topo().num_gpus();
  // Per channel every rank owns 1/p of the channel's part; the channels are identical, so one weighted
  // task stands for all of them (as lower_p2p).
  const double share = call.bytes / p / call.nchannels;
  const double weight = call.nchannels;
  const std::uint32_t scatter = low.graph().add_label("all-pairs reduce-scatter send");
  const std::uint32_t reduce = low.graph().add_label("all-pairs reduce");
  const std::uint32_t gather = low.graph().add_label("all-pairs allgather send");
  const std::uint32_t flag = low.graph().add_label("flag wait");
  std::vector<int> tracks(p);
  for (int r = 0; r < p; ++r) tracks[r] = low.track(fmt::format("rank {} all-pairs x{}", r, call.nchannels));
  // Phase 1: every rank sends each peer that peer's share of its buffer; the owner reduces the p-1
  // received shares into its own (the "re" steps), then sends the result to every peer. As in the
  // bundled files, the reducing threadblock waits on the receiving ones and the sending ones on it: two
  // cross-threadblock handoffs, charged as the MSCCL lowering charges every depid.
  std::vector<std::vector<TaskId>> arriving(p);
  for (int src = 0; src < p; ++src)
    for (int dst = 0; dst < p; ++dst)
      if (src != dst) arriving[dst].push_back(low.add_transfer(src, dst, share, costs, tracks[src], scatter, true, weight));
  for (int owner = 0; owner < p; ++owner) {
    const TaskId received = low.add_local(handoff, -1, flag);
    for (TaskId t : arriving[owner]) low.graph().depend(t, received);
    const TaskId sum = low.add_local(local_reduce_time(low.params(), low.arch(), (p - 1) * share * weight), tracks[owner], reduce);
    low.graph().depend(received, sum);
    const TaskId reduced = low.add_local(handoff, -1, flag);
    low.graph().depend(sum, reduced);
    for (int dst = 0; dst < p; ++dst) {
      if (dst == owner) continue;
      low.graph().depend(reduced, low.add_transfer(owner, dst, share, costs, tracks[owner], gather, true, weight));
    }
  }
}

}  // namespace ccforge::sim::nccl
