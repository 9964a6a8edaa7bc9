// Ring discovery. On a switch (NVSwitch, or no direct links) every ring order is physically the same,
// so the identity order is repeated; multi-node rings visit nodes in order with one crossing per node
// boundary, each ring on its own rail, as NCCL's inter-node rings do. On direct-connect graphs (DGX-1
// hybrid cube-mesh) rings are Hamiltonian cycles over direct links, each consuming one unit (the
// narrowest link's bandwidth) of every link it uses, so the rings found never share a link beyond its
// capacity; the largest such set is searched for, since the first cycles found greedily can block the
// others.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

using Units = std::vector<std::vector<int>>;

// All directed Hamiltonian cycles from rank 0 (neighbours in ascending order), up to a budget that
// bounds the worst case; 8-GPU direct-connect graphs have a few thousand at most.
class CycleEnumerator {
 public:
  explicit CycleEnumerator(const Units& units) : units_(units), p_(static_cast<int>(units.size())) {}

  std::vector<std::vector<int>> all() {
    path_ = {0};
    used_.assign(static_cast<std::size_t>(p_), false);
    used_[0] = true;
    extend();
    return std::move(cycles_);
  }

 private:
  static constexpr std::size_t kMostCycles = 20000;

  void extend() {
    if (cycles_.size() >= kMostCycles) return;
    const int u = path_.back();
    if (static_cast<int>(path_.size()) == p_) {
      if (units_[u][0] > 0) cycles_.push_back(path_);
      return;
    }
    for (int v = 0; v < p_; ++v) {
      if (used_[static_cast<std::size_t>(v)] || units_[u][v] <= 0) continue;
      used_[static_cast<std::size_t>(v)] = true;
      path_.push_back(v);
      extend();
      path_.pop_back();
      used_[static_cast<std::size_t>(v)] = false;
    }
  }

  const Units& units_;
  int p_;
  std::vector<int> path_;
  std::vector<bool> used_;
  std::vector<std::vector<int>> cycles_;
};

// Every ring leaves and enters each rank once, over one unit of a link, so no set of rings is larger
// than the fewest units out of or into any rank.
int most_rings_possible(const Units& units) {
  int most = std::numeric_limits<int>::max();
  for (std::size_t u = 0; u < units.size(); ++u) {
    int out = 0, in = 0;
    for (std::size_t v = 0; v < units.size(); ++v) {
      out += units[u][v];
      in += units[v][u];
    }
    most = std::min({most, out, in});
  }
  return most;
}

// The largest set (up to `count`) of cycles that fit the link units together, by depth-first search
// over the enumerated cycles with an expansion budget; the first set found of the best size is kept.
// The search stops once a set reaches most_rings_possible(): no later set can be larger, and without
// that stop a full mesh (whose 7 disjoint rings fall short of the 8 asked for) spent the whole budget
// proving so, ~0.5 s per call.
class CyclePacker {
 public:
  CyclePacker(const std::vector<std::vector<int>>& cycles, Units units, int count)
      : cycles_(cycles), units_(std::move(units)), count_(std::min(count, most_rings_possible(units_))) {}

  std::vector<std::vector<int>> best() {
    search(0);
    std::vector<std::vector<int>> out;
    for (std::size_t i : best_) out.push_back(cycles_[i]);
    return out;
  }

 private:
  static constexpr long kExpansionBudget = 200000;

  bool fits(const std::vector<int>& c, int delta) {
    const int p = static_cast<int>(c.size());
    bool ok = true;
    for (int x = 0; x < p; ++x) ok &= (units_[c[x]][c[(x + 1) % p]] += delta) >= 0;
    return ok;
  }

  void search(std::size_t from) {
    if (chosen_.size() > best_.size()) best_ = chosen_;
    if (static_cast<int>(best_.size()) >= count_ || --budget_ < 0) return;
    for (std::size_t i = from; i < cycles_.size() && static_cast<int>(best_.size()) < count_; ++i) {
      const bool ok = fits(cycles_[i], -1);
      if (ok) {
        chosen_.push_back(i);
        search(i + 1);
        chosen_.pop_back();
      }
      fits(cycles_[i], +1);
      if (budget_ < 0) return;
    }
  }

  const std::vector<std::vector<int>>& cycles_;
  Units units_;
  int count_;
  long budget_ = kExpansionBudget;
  std::vector<std::size_t> chosen_, best_;
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
  const int p = topo.num_gpus();
  std::vector<int> identity(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) identity[static_cast<std::size_t>(r)] = r;
  Units units = link_units(direct_link_capacity(topo));
  const bool direct_connect = !topo.has_nvswitch() && topo.num_nodes() == 1 &&
                              std::any_of(units.begin(), units.end(), [](const auto& row) {
                                return std::any_of(row.begin(), row.end(), [](int u) { return u > 0; });
                              });
  if (topo.num_nodes() > 1) return rail_rings(topo.num_nodes(), topo.gpus_per_node(), count);
  if (!direct_connect) return std::vector<std::vector<int>>(static_cast<std::size_t>(count), identity);
  const auto cycles = CycleEnumerator(units).all();
  auto rings = CyclePacker(cycles, units, count).best();
  return rings;
}

}  // namespace ccforge::search
