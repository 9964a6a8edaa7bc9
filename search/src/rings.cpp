// Ring discovery. On a switch (NVSwitch, or no direct links) every ring order is physically the same,
// so the identity order is repeated; multi-node rings visit nodes in order with one crossing per node
// boundary, ring j entering every node at the j-th GPU with a NIC in service and leaving it from the GPU
// before, so that its crossings travel on that GPU's rail and rings share NICs only when there are more
// rings than NICs, as NCCL's inter-node rings do (sim/node_rings.hpp, also behind the simulated NCCL
// baseline); on mesh nodes each ring crosses the node along its own searched cycle. On direct-connect graphs (DGX-1 hybrid cube-mesh, MI300X xGMI) the rings are sim's
// link-disjoint packing (sim/mesh_rings.hpp, the one ring packer, also behind the simulated NCCL
// baseline), taken in ascending order so that fewer channels use the same first rings whatever order
// its search found them in.
#include <algorithm>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

std::vector<std::vector<int>> find_rings(const topo::Topology& topo, int count) {
  if (topo.num_nodes() > 1) {
    // One ring per rail in service: more would put two rings on one NIC (callers reuse rings cyclically).
    const std::vector<int> entries = sim::rail_entries(topo);
    const std::vector<std::vector<int>> node_cycles = sim::node_mesh_rings(topo, entries);
    std::vector<std::vector<int>> rings;
    for (int j = 0; j < std::min(count, sim::multi_node_ring_count(entries, node_cycles)); ++j)
      rings.push_back(sim::multi_node_ring(topo, entries, node_cycles, j));
    return rings;
  }
  const CapacityMatrix cap = direct_link_capacity(topo);
  const bool direct_connect = !topo.has_nvswitch() && std::any_of(cap.begin(), cap.end(), [](const auto& row) {
    return std::any_of(row.begin(), row.end(), [](double c) { return c > 0.0; });
  });
  if (!direct_connect) {
    std::vector<int> identity(static_cast<std::size_t>(topo.num_gpus()));
    for (int r = 0; r < topo.num_gpus(); ++r) identity[static_cast<std::size_t>(r)] = r;
    return std::vector<std::vector<int>>(static_cast<std::size_t>(count), identity);
  }
  std::vector<std::vector<int>> rings = sim::mesh_rings(topo);
  std::sort(rings.begin(), rings.end());
  if (rings.size() > static_cast<std::size_t>(std::max(count, 0))) rings.resize(static_cast<std::size_t>(std::max(count, 0)));
  return rings;
}

}  // namespace ccforge::search
