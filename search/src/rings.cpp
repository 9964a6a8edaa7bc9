// Ring discovery. On a switch (NVSwitch, or no direct links) every ring order is physically the same,
// so the identity order is repeated; multi-node identity visits nodes in order with one crossing per
// node boundary, as NCCL's inter-node rings do. On direct-connect graphs (DGX-1 hybrid cube-mesh)
// rings are Hamiltonian cycles over direct links, each consuming one unit (the narrowest link's
// bandwidth) of every link it uses, so the rings found never share a link beyond its capacity.
#include <algorithm>
#include <cmath>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

using Units = std::vector<std::vector<int>>;

// Depth-first search for a Hamiltonian cycle from rank 0, neighbours in ascending rank order. The
// expansion budget bounds the worst case; p <= 16 direct-connect graphs finish far below it.
class CycleFinder {
 public:
  explicit CycleFinder(const Units& units) : units_(units), p_(static_cast<int>(units.size())) {}

  std::optional<std::vector<int>> find() {
    path_ = {0};
    used_.assign(static_cast<std::size_t>(p_), false);
    used_[0] = true;
    budget_ = kExpansionBudget;
    if (extend()) return path_;
    return std::nullopt;
  }

 private:
  static constexpr long kExpansionBudget = 2'000'000;

  bool extend() {
    if (--budget_ < 0) return false;
    const int u = path_.back();
    if (static_cast<int>(path_.size()) == p_) return units_[u][0] > 0;
    for (int v = 0; v < p_; ++v) {
      if (used_[static_cast<std::size_t>(v)] || units_[u][v] <= 0) continue;
      used_[static_cast<std::size_t>(v)] = true;
      path_.push_back(v);
      if (extend()) return true;
      path_.pop_back();
      used_[static_cast<std::size_t>(v)] = false;
    }
    return false;
  }

  const Units& units_;
  int p_;
  std::vector<int> path_;
  std::vector<bool> used_;
  long budget_ = 0;
};

Units link_units(const CapacityMatrix& cap) {
  double narrowest = 0.0;
  for (const auto& row : cap)
    for (double c : row)
      if (c > 0.0 && (narrowest == 0.0 || c < narrowest)) narrowest = c;
  Units units(cap.size(), std::vector<int>(cap.size(), 0));
  if (narrowest == 0.0) return units;
  for (std::size_t u = 0; u < cap.size(); ++u)
    for (std::size_t v = 0; v < cap.size(); ++v) units[u][v] = static_cast<int>(std::floor(cap[u][v] / narrowest + 1e-9));
  return units;
}

}  // namespace

std::vector<std::vector<int>> find_rings(const topo::Topology& topo, int count) {
  const int p = topo.num_gpus();
  std::vector<int> identity(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) identity[static_cast<std::size_t>(r)] = r;
  Units units = link_units(direct_link_capacity(topo));
  const bool direct_connect = !topo.has_nvswitch() && topo.num_nodes() == 1 &&
                              std::any_of(units.begin(), units.end(), [](const auto& row) {
                                return std::any_of(row.begin(), row.end(), [](int u) { return u > 0; });
                              });
  if (!direct_connect) return std::vector<std::vector<int>>(static_cast<std::size_t>(count), identity);
  std::vector<std::vector<int>> rings;
  while (static_cast<int>(rings.size()) < count) {
    CycleFinder finder(units);
    auto ring = finder.find();
    if (!ring) break;
    for (int x = 0; x < p; ++x) --units[(*ring)[x]][(*ring)[(x + 1) % p]];
    rings.push_back(std::move(*ring));
  }
  return rings;
}

}  // namespace ccforge::search
