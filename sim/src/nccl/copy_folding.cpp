#include "copy_folding.hpp"

#include <map>

namespace ccforge::sim::nccl {
namespace {

struct UnionFind {
  std::map<std::uint32_t, std::uint32_t> parent;
  std::uint32_t find(std::uint32_t x) {
    auto it = parent.try_emplace(x, x).first;
    if (it->second == x) return x;
    const std::uint32_t root = find(it->second);
    parent[x] = root;
    return root;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smallest link id represents its class
  }
};

bool same_link_kind(const topo::Topology& topo, const std::vector<double>& extra, std::uint32_t a, std::uint32_t b) {
  const std::size_t n = topo.links().size();
  if (a >= n || b >= n) return a >= n && b >= n && extra.at(a - n) == extra.at(b - n);
  const topo::Link& la = topo.links()[a];
  const topo::Link& lb = topo.links()[b];
  return la.kind == lb.kind && la.bandwidth.bytes_per_s == lb.bandwidth.bytes_per_s;
}

}  // namespace

std::optional<std::vector<std::vector<std::uint32_t>>> fold_copies(
    const topo::Topology& topo, const std::vector<std::vector<std::vector<std::uint32_t>>>& paths,
    const std::vector<double>& extra) {
  UnionFind classes;
  for (const auto& by_copy : paths) {
    for (const auto& path : by_copy) {
      if (path.size() != by_copy[0].size()) return std::nullopt;
      for (std::size_t k = 0; k < path.size(); ++k) {
        if (!same_link_kind(topo, extra, path[k], by_copy[0][k])) return std::nullopt;
        classes.unite(path[k], by_copy[0][k]);
      }
    }
  }
  std::map<std::uint32_t, std::uint32_t> root_of;
  std::map<std::uint32_t, std::vector<std::uint32_t>> members;
  for (const auto& entry : classes.parent) {
    const std::uint32_t root = classes.find(entry.first);
    root_of[entry.first] = root;
    members[root].push_back(entry.first);
  }
  std::vector<std::vector<std::uint32_t>> folded;
  for (const auto& by_copy : paths) {
    // Load of every link by all copies of this flow type, per unit rate.
    std::map<std::uint32_t, int> load;
    for (const auto& path : by_copy) {
      for (std::uint32_t l : path) ++load[l];
    }
    // Every link of a class must carry the same load, counting the links it leaves at zero.
    std::map<std::uint32_t, int> class_load;
    for (const auto& [link, n] : load) {
      const auto [it, inserted] = class_load.try_emplace(root_of.at(link), n);
      if (!inserted && it->second != n) return std::nullopt;
    }
    for (const auto& entry : class_load) {
      for (std::uint32_t link : members.at(entry.first)) {
        if (load.count(link) == 0) return std::nullopt;
      }
    }
    std::vector<std::uint32_t> rep;
    for (const auto& [root, n] : class_load) rep.insert(rep.end(), static_cast<std::size_t>(n), root);
    folded.push_back(std::move(rep));
  }
  return folded;
}

}  // namespace ccforge::sim::nccl
