// Ring discovery. On a switch (NVSwitch, or no direct links) every ring order is physically the same,
// so the identity order is repeated; multi-node rings visit nodes in order with one crossing per node
// boundary, each ring on its own rail, as NCCL's inter-node rings do. On direct-connect graphs (DGX-1
// hybrid cube-mesh, MI300X xGMI) the rings are sim's link-disjoint packing (sim/mesh_rings.hpp, the one
// ring packer, also behind the simulated NCCL baseline), taken in ascending order so that fewer
// channels use the same first rings whatever order its search found them in.
#include <algorithm>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

// Multi-node: ring j enters every node at local GPU j and leaves it from local GPU j-1, so its node
// crossings travel on rail j (the route to the next node's GPU j goes through this node's GPU j and
// its NIC, topology/README.md) and rings on different channels use different NICs, as NCCL's do.
std::vector<std::vector<int>> rail_rings(int nodes, int gpus_per_node, int count) {
  std::vector<std::vector<int>> rings;
  for (int j = 0; j < count; ++j) {
    std::vector<int> ring;
    for (int n = 0; n < nodes; ++n)
      for (int a = 0; a < gpus_per_node; ++a) ring.push_back(n * gpus_per_node + (j + a) % gpus_per_node);
    rings.push_back(std::move(ring));
  }
  return rings;
}

}  // namespace

std::vector<std::vector<int>> find_rings(const topo::Topology& topo, int count) {
  if (topo.num_nodes() > 1) return rail_rings(topo.num_nodes(), topo.gpus_per_node(), count);
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
