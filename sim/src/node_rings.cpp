#include "ccforge/sim/node_rings.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace ccforge::sim {

namespace {

// The PCIe switches each vertex links to directly, from one pass over the links (a scan per GPU made
// rail_entries quadratic: minutes on ndv5-x2048's 16,384 GPUs).
using PcieSwitches = std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>;
PcieSwitches pcie_switches(const topo::Topology& topo) {
  PcieSwitches of;
  for (const topo::Link& l : topo.links())
    if (l.kind == topo::LinkKind::Pcie && topo.vertex(l.dst).kind == topo::VertexKind::PciSwitch)
      of[l.src.v].push_back(l.dst.v);
  return of;
}

// How close a GPU sits to a NIC, as NCCL's GPU-to-NET path types rank it: 0 behind one PCIe switch
// (PIX), 1 on the same NUMA node (PHB), 2 across sockets (SYS).
int distance(const topo::Topology& topo, const PcieSwitches& switches, VertexId gpu, VertexId nic) {
  const auto g = switches.find(gpu.v), n = switches.find(nic.v);
  if (g != switches.end() && n != switches.end())
    for (std::uint32_t s : g->second)
      if (std::find(n->second.begin(), n->second.end(), s) != n->second.end()) return 0;
  return topo.vertex(gpu).numa == topo.vertex(nic).numa ? 1 : 2;
}

}  // namespace

std::vector<int> rail_entries(const topo::Topology& topo) {
  const int g = topo.gpus_per_node();
  std::vector<int> alive_on(static_cast<std::size_t>(g), 0);  // nodes on which local GPU i is a NIC's entry
  const PcieSwitches switches = pcie_switches(topo);
  for (int node = 0; node < topo.num_nodes(); ++node) {
    std::map<std::uint32_t, std::pair<int, int>> entry_of;  // NIC vertex -> (distance, local index) of its closest GPU
    for (int i = 0; i < g; ++i) {
      const topo::GpuInfo& gpu = topo.gpu(node * g + i);
      if (!gpu.nearest_nic) continue;
      const std::pair<int, int> here{distance(topo, switches, gpu.vertex, *gpu.nearest_nic), i};
      const auto [it, inserted] = entry_of.try_emplace(gpu.nearest_nic->v, here);
      if (!inserted) it->second = std::min(it->second, here);
    }
    for (const auto& [nic, entry] : entry_of) ++alive_on[static_cast<std::size_t>(entry.second)];
  }
  std::vector<int> entries;
  for (int i = 0; i < g; ++i)
    if (alive_on[static_cast<std::size_t>(i)] == topo.num_nodes()) entries.push_back(i);
  if (entries.empty())
    for (int i = 0; i < g; ++i) entries.push_back(i);
  return entries;
}

std::vector<int> multi_node_ring(const topo::Topology& topo, const std::vector<int>& entries,
                                 const std::vector<std::vector<int>>& node_cycles, int channel) {
  const int g = topo.gpus_per_node();
  const int e = entries[static_cast<std::size_t>(channel) % entries.size()];
  std::vector<int> order(static_cast<std::size_t>(g));
  if (node_cycles.empty()) {
    for (int a = 0; a < g; ++a) order[static_cast<std::size_t>(a)] = (e + a) % g;
  } else {
    const std::vector<int>& cycle = node_cycles[static_cast<std::size_t>(channel) % node_cycles.size()];
    const auto start = std::find(cycle.begin(), cycle.end(), e) - cycle.begin();
    for (int a = 0; a < g; ++a) order[static_cast<std::size_t>(a)] = cycle[static_cast<std::size_t>((start + a) % g)];
  }
  std::vector<int> ring;
  ring.reserve(static_cast<std::size_t>(topo.num_gpus()));
  for (int node = 0; node < topo.num_nodes(); ++node)
    for (int local : order) ring.push_back(node * g + local);
  return ring;
}

int multi_node_ring_count(const std::vector<int>& entries, const std::vector<std::vector<int>>& node_cycles) {
  return static_cast<int>(node_cycles.empty() ? entries.size() : node_cycles.size());
}

}  // namespace ccforge::sim
