#include "fabric_paths.hpp"

#include <algorithm>

namespace ccforge::topo {

FabricPaths::FabricPaths(const GraphData& graph) : data_(graph), ports_(graph.vertices.size()), spines_(graph.vertices.size()) {
  auto is_switch = [&](VertexId v) { return graph.vertices[v.v].kind == VertexKind::NetSwitch; };
  std::vector<std::uint32_t> switches_of_nic(graph.vertices.size(), 0);
  std::vector<std::uint32_t> ports_of_leaf(graph.vertices.size(), 0);
  for (std::uint32_t i = 0; i < graph.links.size(); ++i) {
    const Link& l = graph.links[i];
    if (l.kind != LinkKind::Nic) continue;
    if (is_switch(l.dst)) {
      ++switches_of_nic[l.src.v];
      ports_[l.src.v].leaf = l.dst.v;
      ports_[l.src.v].up = i;
      ports_[l.src.v].index = ports_of_leaf[l.dst.v]++;
    } else if (is_switch(l.src)) {
      ports_[l.dst.v].down = i;
    }
  }
  for (std::size_t v = 0; v < ports_.size(); ++v) {
    const bool one_leaf = switches_of_nic[v] == 1 && ports_[v].down != kNone;
    if (!one_leaf) ports_[v] = LeafPort{};  // a NIC on two switches (or a one-way cable): searched instead
  }
  // Spines: switches cabled to a leaf, i.e. to a switch with NIC ports.
  auto spine_entry = [&](std::uint32_t leaf, std::uint32_t spine) -> SpineLinks& {
    auto& list = spines_[leaf];
    const auto it = std::find_if(list.begin(), list.end(), [&](const SpineLinks& s) { return s.spine == spine; });
    if (it != list.end()) return *it;
    list.push_back(SpineLinks{spine, kNone, kNone});
    return list.back();
  };
  for (std::uint32_t i = 0; i < graph.links.size(); ++i) {
    const Link& l = graph.links[i];
    if (l.kind != LinkKind::Network || !is_switch(l.src) || !is_switch(l.dst)) continue;
    if (ports_of_leaf[l.src.v] > 0) spine_entry(l.src.v, l.dst.v).up = i;
    if (ports_of_leaf[l.dst.v] > 0) spine_entry(l.dst.v, l.src.v).down = i;
  }
  for (auto& list : spines_) {
    std::sort(list.begin(), list.end(), [](const SpineLinks& a, const SpineLinks& b) { return a.spine < b.spine; });
  }
}

// Between leaves, the spine follows the destination, as OpenSM's fat-tree routing (ftree) and D-Mod-K
// assign it (E. Zahavi, G. Johnson, D. J. Kerbyson, M. Lang, "Optimized InfiniBand fat-tree routing for shift
// all-to-all communication patterns", Concurrency Computat.: Pract. Exper. 22(2), 2010): the k-th NIC port of
// a leaf is reached through the (k mod spines)-th spine joining the two leaves, so with as many spines as
// ports (non-blocking) every NIC below a leaf has its own downward spine link. Spines behind a degraded
// cable are passed over while a wider one joins the leaves (ccforge's rule: of paths of one class, the
// wider), so a what-if degradation moves traffic off it.
std::optional<std::vector<LinkId>> FabricPaths::between(VertexId from, VertexId to) const {
  const LeafPort& src = ports_[from.v];
  const LeafPort& dst = ports_[to.v];
  if (src.leaf == kNone || dst.leaf == kNone) return std::nullopt;
  if (src.leaf == dst.leaf) return std::vector<LinkId>{LinkId{src.up}, LinkId{dst.down}};
  const auto& ups = spines_[src.leaf];
  const auto& downs = spines_[dst.leaf];
  // Spines with a live cable to both leaves, walked in vertex order (both lists are sorted).
  auto for_each_joining = [&](auto visit) {
    std::size_t u = 0, d = 0;
    while (u < ups.size() && d < downs.size()) {
      if (ups[u].spine < downs[d].spine) {
        ++u;
      } else if (downs[d].spine < ups[u].spine) {
        ++d;
      } else {
        if (ups[u].up != kNone && downs[d].down != kNone && visit(ups[u].up, downs[d].down)) return;
        ++u, ++d;
      }
    }
  };
  auto width = [&](std::uint32_t up, std::uint32_t down) {
    return std::min(data_.links[up].bandwidth.bytes_per_s, data_.links[down].bandwidth.bytes_per_s);
  };
  double widest = 0.0;
  std::size_t joining = 0;
  for_each_joining([&](std::uint32_t up, std::uint32_t down) {
    const double w = width(up, down);
    if (w > widest) widest = w, joining = 0;
    joining += w == widest;
    return false;
  });
  if (joining == 0) return std::nullopt;
  std::size_t skip = dst.index % joining;
  std::vector<LinkId> path;
  for_each_joining([&](std::uint32_t up, std::uint32_t down) {
    if (width(up, down) != widest || skip-- > 0) return false;
    path = {LinkId{src.up}, LinkId{up}, LinkId{down}, LinkId{dst.down}};
    return true;
  });
  return path;
}

}  // namespace ccforge::topo
