// nic_placement: which NIC each GPU of node 0 uses and how it reaches it, in terms that do not depend
// on bus ids or NIC names (an import is compared with a bundled machine by these).
#include "ccforge/topology/import.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace ccforge::topo {
namespace {

// The PCIe parent of `v`: node_builder adds a device's cable to its parent before any child's, so the
// first PCIe link out of a device leads up the tree. CPUs have none.
std::optional<VertexId> pcie_parent(const Topology& t, VertexId v) {
  for (const Link& link : t.links()) {
    if (link.src == v && link.kind == LinkKind::Pcie) return link.dst;
  }
  return std::nullopt;
}

// `v` and the switches above it, up to and including its CPU.
std::vector<VertexId> ancestors(const Topology& t, VertexId v) {
  std::vector<VertexId> out;
  for (std::optional<VertexId> at = pcie_parent(t, v); at; at = pcie_parent(t, *at)) {
    out.push_back(*at);
    if (t.vertex(*at).kind == VertexKind::Cpu) break;
  }
  return out;
}

std::string locality(const Topology& t, VertexId gpu, VertexId nic) {
  const std::vector<VertexId> up_gpu = ancestors(t, gpu);
  const std::vector<VertexId> up_nic = ancestors(t, nic);
  for (VertexId a : up_gpu) {
    if (std::find(up_nic.begin(), up_nic.end(), a) == up_nic.end()) continue;
    return t.vertex(a).kind == VertexKind::Cpu ? "cpu" : "switch";
  }
  return "remote";
}

}  // namespace

std::vector<NicPlacement> nic_placement(const Topology& t) {
  std::vector<NicPlacement> out;
  const int n = t.gpus_per_node();
  for (int r = 0; r < n; ++r) {
    const GpuInfo& g = t.gpu(r);
    NicPlacement p;
    p.rank = r;
    for (int o = 0; o < n; ++o) {
      if (t.gpu(o).numa == g.numa) p.numa_peers.push_back(o);
      if (g.nearest_nic && t.gpu(o).nearest_nic == g.nearest_nic) p.nic_sharers.push_back(o);
    }
    p.nic = g.nearest_nic ? t.vertex(*g.nearest_nic).name : "";
    p.locality = g.nearest_nic ? locality(t, g.vertex, *g.nearest_nic) : "none";
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace ccforge::topo
