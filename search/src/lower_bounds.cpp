// Lower bounds per collective (algorithms.md §10). Bandwidth: every GPU must inject/eject its share
// through its fabric bandwidth (Patarasuk and Yuan 2009 for allreduce; nccl-tests PERFORMANCE.md bus
// bandwidth factors), and across nodes every node must move its share through its NICs (the node-level
// form of the same argument; on rail-optimised full-bisection fabrics this is the binding cut).
// Latency: ceil(log2 p) rounds, each at least the fastest GPU-GPU route latency (single-port model).
// Allreduce on a Hopper+ NVSwitch (NVLS in-switch reduction, which NCCL uses there) sends and receives
// each byte once, so its bound drops to n/B (algorithms.md §10); SHARP across nodes is not modelled.
#include <algorithm>
#include <cmath>
#include <set>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

// Bytes each GPU (or node) must move through its own port for a collective of `bytes` over `parts`.
double share_through_port(C coll, double bytes, int parts, bool in_switch_reduction) {
  const double rest = static_cast<double>(parts - 1) / parts;
  switch (coll) {
    case C::AllReduce: return in_switch_reduction ? bytes : 2.0 * rest * bytes;
    case C::Broadcast:
    case C::Reduce: return bytes;
    default: return rest * bytes;  // allgather, reducescatter, alltoall, gather, scatter
  }
}

Bandwidth gpu_port(const topo::GpuInfo& gpu) {
  return gpu.nvlink_bandwidth.bytes_per_s > 0.0 ? gpu.nvlink_bandwidth : gpu.pcie_bandwidth;
}

// Slowest GPU port: the bound holds for every GPU, so the narrowest one binds.
double narrowest_gpu_port(const topo::Topology& topo) {
  double bw = std::numeric_limits<double>::infinity();
  for (int r = 0; r < topo.num_gpus(); ++r) bw = std::min(bw, gpu_port(topo.gpu(r)).bytes_per_s);
  return bw;
}

// Sum of distinct NICs' bandwidth per node, minimum over nodes.
double narrowest_node_network(const topo::Topology& topo) {
  std::vector<double> per_node(static_cast<std::size_t>(topo.num_nodes()), 0.0);
  std::set<std::uint32_t> counted;
  for (int r = 0; r < topo.num_gpus(); ++r) {
    const topo::GpuInfo& gpu = topo.gpu(r);
    if (!gpu.nearest_nic || !counted.insert(gpu.nearest_nic->v).second) continue;
    per_node[static_cast<std::size_t>(gpu.node)] += gpu.nic_bandwidth.bytes_per_s;
  }
  return *std::min_element(per_node.begin(), per_node.end());
}

SimTime fastest_route(const topo::Topology& topo) {
  SimTime best = SimTime::max();
  for (int i = 0; i < topo.num_gpus(); ++i)
    for (int j = 0; j < topo.num_gpus(); ++j)
      if (i != j) best = std::min(best, topo.route(i, j).latency);
  return best;
}

}  // namespace

LowerBound lower_bound(const topo::Topology& topo, ir::Collective coll, ByteCount bytes) {
  const int p = topo.num_gpus(), nodes = topo.num_nodes();
  // Alltoall counts the per-rank send buffer; the rest of the GPU-level argument is the same.
  const double n = static_cast<double>(bytes);
  // Rooted collectives are bound by the root's port (root is rank 0, see GenRequest); the others by
  // every GPU's, so the narrowest binds.
  const bool rooted = coll == C::Broadcast || coll == C::Reduce || coll == C::Gather || coll == C::Scatter;
  const double port = rooted ? gpu_port(topo.gpu(0)).bytes_per_s : narrowest_gpu_port(topo);
  const topo::GpuArch arch = topo.gpu(0).arch;
  const bool nvls = topo.has_nvswitch() && (arch == topo::GpuArch::Hopper || arch == topo::GpuArch::Blackwell);
  double seconds = share_through_port(coll, n, p, nvls) / port;
  if (nodes > 1) {
    const double node_bytes = coll == C::AllToAll ? n * topo.gpus_per_node() : n;
    const double net = narrowest_node_network(topo);
    if (net > 0.0) seconds = std::max(seconds, share_through_port(coll, node_bytes, nodes, false) / net);
  }
  const int rounds = static_cast<int>(std::ceil(std::log2(static_cast<double>(p))));
  return {SimTime{static_cast<std::int64_t>(std::ceil(seconds * 1e12))}, fastest_route(topo) * rounds};
}

}  // namespace ccforge::search
