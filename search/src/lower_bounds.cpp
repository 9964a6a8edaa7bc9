// Lower bounds per collective (algorithms.md §10), true for everything the simulator can run and as
// tight as its physical parameters allow.
//
// Bandwidth: every GPU must inject/eject its share through its fabric port (Patarasuk and Yuan 2009 for
// allreduce; nccl-tests PERFORMANCE.md bus bandwidth factors), and across nodes every node must move its
// share through its NICs. A GPU's port is what the simulator can push through it: the links its routes
// to the other GPUs start (inject) or end (eject) on, each at its rate times the simulator's link
// efficiency.
// Fixed part: every simulated call pays its per-call base (launch, teardown) after the last task, and
// no byte moves before a transfer's alpha (route latency) has passed, so a call takes at least
// base + fastest route latency + busiest port's bytes / its rate.
// NVLS (Hopper+ NVSwitch, one node) is the other mechanism: in-switch reduction sends and receives each
// byte once, but the simulator's NVLS (sim/src/nccl/nvls.cpp, NCCL's multimem ld_reduce / st) reaches
// the owner's own memory through the switch too, so each port carries (p+1)/p of the buffer for
// allreduce, the whole buffer for allgather and reducescatter; its wire carries payload / NVLS
// efficiency, every operation waits a route latency plus a Simple step's sync, and the call pays NVLS's
// own base. The bound is the smaller of the two mechanisms, since a call may use either.
// Without the simulator's table the same arguments give the raw hardware bound (line rates, no fixed
// costs beyond one route latency).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

// The simulator's parameters a bound uses; all neutral (raw hardware) without its table.
struct Model {
  const ParamTable* table = nullptr;
  std::string arch;  // topo::param_key of the GPUs

  double get(const std::string& name, double raw) const { return table ? table->get(name) : raw; }
  // As sim/src/costs.cpp link_efficiency: NVLink and NVSwitch by GPU architecture, network links by one
  // figure, every other link at its line rate.
  double link_efficiency(topo::LinkKind kind) const {
    switch (kind) {
      case topo::LinkKind::NvLink:
      case topo::LinkKind::NvSwitch: return get("sim.link.nvlink.efficiency." + arch, 1.0);
      case topo::LinkKind::Nic:
      case topo::LinkKind::Network: return get("sim.link.net.efficiency", 1.0);
      default: return 1.0;
    }
  }
  // Smallest per-call base of a non-NVLS call: NCCL's per protocol (sim.base.*) or the MSCCL runtime's.
  SimTime launch() const {
    if (!table) return SimTime{0};
    double us = table->get("sim.msccl.base_us");
    for (const char* proto : {"LL", "LL128", "Simple"}) us = std::min(us, table->get(std::string("sim.base.") + proto + "_us"));
    return SimTime::from_us(us);
  }
};

// Bytes each GPU (or node) must move through its own port for a collective of `bytes` over `parts`,
// without in-network reduction.
double share_through_port(C coll, double bytes, int parts) {
  const double rest = static_cast<double>(parts - 1) / parts;
  switch (coll) {
    case C::AllReduce: return 2.0 * rest * bytes;
    case C::Broadcast:
    case C::Reduce: return bytes;
    default: return rest * bytes;  // allgather, reducescatter, alltoall, gather, scatter
  }
}

// Rate the simulator can push out of (inject) or into (eject) GPU `g`: the distinct links its routes
// to the other GPUs start or end on.
double port_rate(const topo::Topology& topo, const Model& model, int g, bool inject) {
  std::set<std::uint32_t> seen;
  double rate = 0.0;
  for (int q = 0; q < topo.num_gpus(); ++q) {
    if (q == g) continue;
    const topo::Route& r = inject ? topo.route(g, q) : topo.route(q, g);
    if (r.links.empty()) continue;
    const LinkId l = inject ? r.links.front() : r.links.back();
    if (!seen.insert(l.v).second) continue;
    const topo::Link& link = topo.link(l);
    rate += link.bandwidth.bytes_per_s * model.link_efficiency(link.kind);
  }
  return rate;
}

// The port that binds: the root's for rooted collectives (root is rank 0, see GenRequest: broadcast and
// scatter inject, reduce and gather eject), else the narrowest direction of the narrowest GPU.
double binding_port(const topo::Topology& topo, const Model& model, C coll) {
  if (coll == C::Broadcast || coll == C::Scatter) return port_rate(topo, model, 0, true);
  if (coll == C::Reduce || coll == C::Gather) return port_rate(topo, model, 0, false);
  double rate = std::numeric_limits<double>::infinity();
  for (int g = 0; g < topo.num_gpus(); ++g)
    rate = std::min({rate, port_rate(topo, model, g, true), port_rate(topo, model, g, false)});
  return rate;
}

// Sum of distinct NICs' rate per node, minimum over nodes.
double narrowest_node_network(const topo::Topology& topo, const Model& model) {
  std::vector<double> per_node(static_cast<std::size_t>(topo.num_nodes()), 0.0);
  std::set<std::uint32_t> counted;
  const double efficiency = model.link_efficiency(topo::LinkKind::Network);
  for (int r = 0; r < topo.num_gpus(); ++r) {
    const topo::GpuInfo& gpu = topo.gpu(r);
    if (!gpu.nearest_nic || !counted.insert(gpu.nearest_nic->v).second) continue;
    per_node[static_cast<std::size_t>(gpu.node)] += gpu.nic_bandwidth.bytes_per_s * efficiency;
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

SimTime seconds_to_time(double seconds) { return SimTime{static_cast<std::int64_t>(std::ceil(seconds * 1e12))}; }

// Bytes through each GPU port under the simulator's NVLS, or 0 when NVLS cannot run `coll` here.
double nvls_port_bytes(const topo::Topology& topo, C coll, double n) {
  const topo::GpuArch arch = topo.gpu(0).arch;
  const bool nvls = topo.has_nvswitch() && topo.num_nodes() == 1 &&
                    (arch == topo::GpuArch::Hopper || arch == topo::GpuArch::Blackwell);
  if (!nvls) return 0.0;
  const int p = topo.num_gpus();
  switch (coll) {
    case C::AllReduce: return n * (p + 1) / p;
    case C::AllGather:
    case C::ReduceScatter: return n;
    default: return 0.0;
  }
}

}  // namespace

LowerBound lower_bound(const topo::Topology& topo, ir::Collective coll, ByteCount bytes, const ParamTable* sim_params) {
  const Model model{sim_params, topo::param_key(topo.gpu(0).arch)};
  const int p = topo.num_gpus(), nodes = topo.num_nodes();
  const double n = static_cast<double>(bytes);  // alltoall: the per-rank send buffer, same argument
  const double port = binding_port(topo, model, coll);
  const SimTime first_hop = fastest_route(topo);

  double seconds = share_through_port(coll, n, p) / port;
  if (nodes > 1) {
    const double node_bytes = coll == C::AllToAll ? n * topo.gpus_per_node() : n;
    const double net = narrowest_node_network(topo, model);
    if (net > 0.0) seconds = std::max(seconds, share_through_port(coll, node_bytes, nodes) / net);
  }
  LowerBound best{seconds_to_time(seconds), model.launch() + first_hop};

  if (const double nvls_bytes = nvls_port_bytes(topo, coll, n); nvls_bytes > 0.0) {
    const double efficiency = model.get("sim.nvls.efficiency." + model.arch, 1.0);
    const LowerBound nvls{seconds_to_time(nvls_bytes / (efficiency * port)),
                          SimTime::from_us(model.get("sim.nvls.base_us", 0.0) + model.get("sim.sync.Simple.nvlink_us", 0.0)) +
                              first_hop};
    if (nvls.total() < best.total()) best = nvls;
  }
  return best;
}

}  // namespace ccforge::search
