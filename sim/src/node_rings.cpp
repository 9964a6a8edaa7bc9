#include "ccforge/sim/node_rings.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace ccforge::sim {

namespace {

// How close a GPU sits to a NIC, as NCCL's GPU-to-NET path types rank it: 0 behind one PCIe switch
// (PIX), 1 on the same NUMA node (PHB), 2 across sockets (SYS).
int distance(const topo::Topology& topo, VertexId gpu, VertexId nic) {
  std::set<std::uint32_t> gpu_switches;
  for (const topo::Link& l : topo.links())
    if (l.src == gpu && l.kind == topo::LinkKind::Pcie && topo.vertex(l.dst).kind == topo::VertexKind::PciSwitch)
      gpu_switches.insert(l.dst.v);
  for (const topo::Link& l : topo.links())
    if (l.src == nic && l.kind == topo::LinkKind::Pcie && gpu_switches.count(l.dst.v)) return 0;
  return topo.vertex(gpu).numa == topo.vertex(nic).numa ? 1 : 2;
}

}  // namespace

std::vector<int> rail_entries(const topo::Topology& topo) {
  const int g = topo.gpus_per_node();
  std::vector<int> alive_on(static_cast<std::size_t>(g), 0);  // nodes on which local GPU i is a NIC's entry
  for (int node = 0; node < topo.num_nodes(); ++node) {
    std::map<std::uint32_t, std::pair<int, int>> entry_of;  // NIC vertex -> (distance, local index) of its closest GPU
    for (int i = 0; i < g; ++i) {
      const topo::GpuInfo& gpu = topo.gpu(node * g + i);
      if (!gpu.nearest_nic) continue;
      const std::pair<int, int> here{distance(topo, gpu.vertex, *gpu.nearest_nic), i};
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

std::vector<int> multi_node_ring(const topo::Topology& topo, int channel) {
  const std::vector<int> entries = rail_entries(topo);
  const int g = topo.gpus_per_node();
  const int e = entries[static_cast<std::size_t>(channel) % entries.size()];
  std::vector<int> ring;
  ring.reserve(static_cast<std::size_t>(topo.num_gpus()));
  for (int node = 0; node < topo.num_nodes(); ++node)
    for (int a = 0; a < g; ++a) ring.push_back(node * g + (e + a) % g);
  return ring;
}

}  // namespace ccforge::sim
