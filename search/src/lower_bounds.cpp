// Lower bounds per collective (algorithms.md §10), true for everything the simulator can run and as
// tight as its physical parameters allow.
//
// Bandwidth: every GPU must inject/eject its own share through its fabric port, and all GPUs together
// must inject the collective's total through the sum of their ports (party_share below: per-party
// shares, and the one-way gossip total for allreduce, Patarasuk and Yuan 2009); across nodes the same
// holds for nodes and their NICs. Per-party shares keep the bound true when ports differ (a degraded
// GPU can be a leaf of every tree and move only its own share); the total keeps it tight when they are
// equal. A GPU's port is what the simulator can push through it: the links its routes to the other
// GPUs start (inject) or end (eject) on, each at its rate times the simulator's link efficiency; in a
// cluster, every link at the GPU and a link-based fastest route (every pair's route is too many there).
// Fixed part: every simulated call pays its per-call base (launch, teardown) after the last task, and
// no byte moves before a transfer's alpha (route latency) has passed, so a call takes at least
// base + fastest route latency + busiest port's bytes / its rate.
// NVLS (Hopper+ NVSwitch; across nodes NVLS-tree, allreduce only) is the other mechanism: in-switch reduction sends and receives each
// byte once, but the simulator's NVLS (sim/src/nccl/nvls.cpp, NCCL's multimem ld_reduce / st) reaches
// the owner's own memory through the switch too, so each port carries (p+1)/p of the buffer for
// allreduce, the whole buffer for allgather and reducescatter; its wire carries payload / NVLS
// efficiency, every operation first waits one NVLS step handoff (two multimem round trips), and the call
// pays NVLS's own base. The bound is the smaller of the two mechanisms, since a call may use either.
// Without the simulator's table the same arguments give the raw hardware bound (line rates, no fixed
// costs beyond one route latency).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

// The simulator's facts a bound uses; all neutral (raw hardware) without its model.
struct Model {
  const topo::Topology& topo;
  const sim::Model* sim = nullptr;

  double capacity(LinkId l) const { return sim ? sim->link_capacity[l.v] : topo.link(l).bandwidth.bytes_per_s; }
  double nic_efficiency() const { return sim ? sim->nic_efficiency : 1.0; }
  SimTime launch() const { return sim ? sim->min_call_base : SimTime{0}; }
};

// Bytes party `g` (a GPU, or a node of GPUs) must inject and eject for a collective of `bytes` over
// `parts` parties without in-network reduction, and the total all parties must inject. Each value of a
// party's input that another party needs leaves it at least once, and each value it needs arrives at
// least once (a combined partial sum counts once): an allreduce party injects and ejects the whole
// buffer (a leaf of a reduction tree does exactly that). The total is the one-way gossip bound: combining
// p values into p results takes at least 2(p-1) messages (Patarasuk and Yuan 2009 for allreduce), which
// for equal ports gives the familiar 2(p-1)/p per party. Rooted collectives have their root at rank 0.
struct Shares {
  double inject = 0.0, eject = 0.0;
};

Shares party_share(C coll, double bytes, int parts, bool root) {
  const double piece = bytes / parts, rest = bytes - piece;
  switch (coll) {
    case C::AllReduce: return {bytes, bytes};
    case C::AllGather: return {piece, rest};
    case C::ReduceScatter: return {rest, piece};
    case C::Broadcast: return root ? Shares{bytes, 0.0} : Shares{0.0, bytes};
    case C::Reduce: return root ? Shares{0.0, bytes} : Shares{bytes, 0.0};
    case C::Gather: return root ? Shares{0.0, rest} : Shares{piece, 0.0};
    case C::Scatter: return root ? Shares{rest, 0.0} : Shares{0.0, piece};
    default: return {rest, rest};  // alltoall: the per-rank buffer goes to the others
  }
}

double total_injected(C coll, double bytes, int parts) {
  if (coll == C::AllReduce) return 2.0 * (parts - 1) * bytes;
  double total = 0.0;
  for (int g = 0; g < parts; ++g) total += party_share(coll, bytes, parts, g == 0).inject;
  return total;
}

// Seconds the busiest party needs: each party's share through its own port, and the total through all.
double busiest_port_seconds(C coll, double bytes, const std::vector<double>& inject_rate,
                            const std::vector<double>& eject_rate) {
  const int parts = static_cast<int>(inject_rate.size());
  double seconds = 0.0, inject_sum = 0.0, eject_sum = 0.0;
  for (int g = 0; g < parts; ++g) {
    const Shares s = party_share(coll, bytes, parts, g == 0);
    if (s.inject > 0.0) seconds = std::max(seconds, s.inject / inject_rate[g]);
    if (s.eject > 0.0) seconds = std::max(seconds, s.eject / eject_rate[g]);
    inject_sum += inject_rate[g];
    eject_sum += eject_rate[g];
  }
  const double total = total_injected(coll, bytes, parts);
  return std::max({seconds, total / inject_sum, total / eject_sum});
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
    rate += model.capacity(l);
  }
  return rate;
}

// The same port in a cluster, where the routes that decide it are every pair's (268 M at 16,384 GPUs):
// every link leaving (inject) or entering (eject) the GPU, a superset of its routes' first or last links,
// so the bound stays true. On the bundled clusters it is the same set (NVLink to the node's GPUs and PXN
// relays, PCIe to and from the GPU's own NIC): ndv5-x2 and ndv5-x16 tunes report the same bounds.
std::vector<double> link_port_rates(const topo::Topology& topo, const Model& model, bool inject) {
  std::vector<int> rank_of(topo.vertices().size(), -1);
  for (int g = 0; g < topo.num_gpus(); ++g) rank_of[topo.gpu(g).vertex.v] = g;
  std::vector<double> rates(static_cast<std::size_t>(topo.num_gpus()), 0.0);
  for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
    const topo::Link& l = topo.links()[i];
    if (const int g = rank_of[(inject ? l.src : l.dst).v]; g >= 0) rates[static_cast<std::size_t>(g)] += model.capacity(LinkId{i});
  }
  return rates;
}

std::vector<double> port_rates(const topo::Topology& topo, const Model& model, bool inject) {
  if (topo.num_nodes() > 1) return link_port_rates(topo, model, inject);
  std::vector<double> rates;
  for (int g = 0; g < topo.num_gpus(); ++g) rates.push_back(port_rate(topo, model, g, inject));
  return rates;
}

// Sum of each node's distinct NICs' rates (the same both ways).
std::vector<double> node_network_rates(const topo::Topology& topo, const Model& model) {
  std::vector<double> per_node(static_cast<std::size_t>(topo.num_nodes()), 0.0);
  std::set<std::uint32_t> counted;
  const double efficiency = model.nic_efficiency();
  for (int r = 0; r < topo.num_gpus(); ++r) {
    const topo::GpuInfo& gpu = topo.gpu(r);
    if (!gpu.nearest_nic || !counted.insert(gpu.nearest_nic->v).second) continue;
    per_node[static_cast<std::size_t>(gpu.node)] += gpu.nic_bandwidth.bytes_per_s * efficiency;
  }
  return per_node;
}

SimTime fastest_route(const topo::Topology& topo) {
  SimTime best = SimTime::max();
  for (int i = 0; i < topo.num_gpus(); ++i)
    for (int j = 0; j < topo.num_gpus(); ++j)
      if (i != j) best = std::min(best, topo.route(i, j).latency);
  return best;
}

// No faster than any route in a cluster, without every pair's route: a route is one GPU-to-GPU link, or
// leaves its GPU on one link and enters the other on another. On the bundled clusters the fastest route
// is two NVSwitch hops, which this equals.
SimTime fastest_route_by_links(const topo::Topology& topo) {
  const auto is_gpu = [&](VertexId v) { return topo.vertex(v).kind == topo::VertexKind::Gpu; };
  SimTime direct = SimTime::max(), leave = SimTime::max(), enter = SimTime::max();
  for (const topo::Link& l : topo.links()) {
    if (is_gpu(l.src) && is_gpu(l.dst)) direct = std::min(direct, l.latency);
    if (is_gpu(l.src)) leave = std::min(leave, l.latency);
    if (is_gpu(l.dst)) enter = std::min(enter, l.latency);
  }
  return std::min(direct, leave + enter);
}

SimTime seconds_to_time(double seconds) { return SimTime{static_cast<std::int64_t>(std::ceil(seconds * 1e12))}; }

// Bytes through each GPU port under the simulator's NVLS, or 0 when NVLS cannot run `coll` here. One
// node: sim/src/nccl/nvls.cpp also routes the owner's own share through the switch, (p+1)/p of the
// buffer for allreduce. Across nodes (NVLS-tree, allreduce only) each byte is counted once each way,
// which no in-switch reduction can undercut.
double nvls_port_bytes(const topo::Topology& topo, const sim::Model& nvls_model, C coll, double n) {
  if (!nvls_model.nvls_efficiency) return 0.0;
  const int p = topo.num_gpus();
  if (topo.num_nodes() > 1) return coll == C::AllReduce ? n : 0.0;
  switch (coll) {
    case C::AllReduce: return n * (p + 1) / p;
    case C::AllGather:
    case C::ReduceScatter: return n;
    default: return 0.0;
  }
}

}  // namespace

LowerBound lower_bound(const topo::Topology& topo, ir::Collective coll, ByteCount bytes, const sim::Model* sim_model) {
  const Model model{topo, sim_model};
  const double n = static_cast<double>(bytes);  // alltoall: the per-rank send buffer, same argument
  const std::vector<double> inject = port_rates(topo, model, true), eject = port_rates(topo, model, false);
  const SimTime first_hop = topo.num_nodes() > 1 ? fastest_route_by_links(topo) : fastest_route(topo);

  double network = 0.0;  // seconds the narrowest nodes' NICs need, whatever happens inside a node
  if (topo.num_nodes() > 1) {
    const std::vector<double> nics = node_network_rates(topo, model);
    const double node_bytes = coll == C::AllToAll ? n * topo.gpus_per_node() : n;
    if (*std::min_element(nics.begin(), nics.end()) > 0.0) network = busiest_port_seconds(coll, node_bytes, nics, nics);
  }
  LowerBound best{seconds_to_time(std::max(busiest_port_seconds(coll, n, inject, eject), network)),
                  model.launch() + first_hop};

  // Where NVLS can run is the simulator's to say, with its model or (for the raw bound) its defaults.
  const sim::Model defaults = sim_model ? sim::Model{} : sim::build_model(topo, sim::SimParams{});
  if (const double nvls_bytes = nvls_port_bytes(topo, sim_model ? *sim_model : defaults, coll, n); nvls_bytes > 0.0) {
    const double efficiency = sim_model ? *sim_model->nvls_efficiency : 1.0;
    const double port = std::min(*std::min_element(inject.begin(), inject.end()), *std::min_element(eject.begin(), eject.end()));
    // Every NVLS operation first waits one step handoff, two multimem round trips inside the node
    // (sim::nvls_step_handoff of a GPU-to-GPU route latency, the fastest of which is first_hop); without
    // the model, or with one GPU per node, only the first hop.
    const SimTime handoff = sim_model && topo.gpus_per_node() > 1 ? sim::nvls_step_handoff(first_hop) : first_hop;
    const LowerBound nvls{seconds_to_time(std::max(nvls_bytes / (efficiency * port), network)),
                          (sim_model ? sim_model->nvls_base : SimTime{0}) + handoff};
    if (nvls.total() < best.total()) best = nvls;
  }
  return best;
}

}  // namespace ccforge::search
