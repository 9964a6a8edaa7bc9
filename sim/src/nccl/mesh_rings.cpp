#include "ccforge/sim/mesh_rings.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace ccforge::sim {
namespace {

// Bounds the search on meshes where the ring-count bound is not reachable (it is exponential in the
// worst case); NCCL's search stops on a time limit the same way and keeps the best solution so far.
constexpr long kMaxExpansions = 200'000;

// As ncclTopoSearchRec: depth first over the rings of all channels, so a ring that blocks later
// channels is revisited; keeps the largest set found and stops at `bound`. With `starts`, each channel's
// shape is a Hamiltonian path from its start (the GPU its NIC feeds) to a GPU that ends no other path
// and may end one (`may_end`: it leaves through its own NIC), through a second GPU that is no other
// path's second (a tree channel's second network link leaves from it); without, a cycle from GPU 0.
struct MeshSearch {
  int p = 0;
  std::size_t bound = 0;
  std::vector<std::vector<int>> capacity;  // [src][dst]: rings the direct link can still carry
  std::vector<int> starts;                 // paths: channel k's first GPU
  std::vector<char> may_end;               // paths: GPUs a path may end at (not yet ended at)
  std::vector<char> second_taken;          // paths: GPUs already second on a path
  std::vector<std::vector<int>> rings;     // completed rings of this branch
  std::vector<std::vector<int>> best;
  std::vector<int> ring;
  std::vector<char> used;
  long expansions = 0;

  bool paths() const { return !starts.empty(); }

  // True when the search is over (bound reached or budget spent).
  bool extend() {
    if (++expansions > kMaxExpansions) return true;
    const int at = ring.back();
    if (static_cast<int>(ring.size()) == p) {
      if (paths()) return may_end[static_cast<std::size_t>(at)] != 0 && close_ring();
      return capacity[at][ring.front()] > 0 && close_ring();
    }
    const bool second = paths() && ring.size() == 1;
    std::vector<int> next;
    for (int r = 0; r < p; ++r) {
      if (used[r] == 0 && capacity[at][r] > 0 && !(second && second_taken[static_cast<std::size_t>(r)] != 0)) next.push_back(r);
    }
    std::stable_sort(next.begin(), next.end(), [&](int a, int b) { return capacity[at][a] > capacity[at][b]; });
    for (int r : next) {
      ring.push_back(r);
      used[r] = 1;
      --capacity[at][r];
      if (second) second_taken[static_cast<std::size_t>(r)] = 1;
      const bool done = extend();
      if (second) second_taken[static_cast<std::size_t>(r)] = 0;
      ++capacity[at][r];
      used[r] = 0;
      ring.pop_back();
      if (done) return true;
    }
    return false;
  }

  // The ring in progress is complete: record it and search the next channel's ring on what is left.
  bool close_ring() {
    const int last = ring.back();
    if (paths())
      may_end[static_cast<std::size_t>(last)] = 0;
    else
      --capacity[last][ring.front()];
    rings.push_back(ring);
    if (rings.size() > best.size()) best = rings;
    bool done = best.size() >= bound;
    if (!done) {
      const std::vector<int> saved_ring = ring;
      const std::vector<char> saved_used = used;
      start(paths() ? starts[rings.size()] : 0);
      done = extend();
      ring = saved_ring;
      used = saved_used;
    }
    rings.pop_back();
    if (paths())
      may_end[static_cast<std::size_t>(last)] = 1;
    else
      ++capacity[last][ring.front()];
    return done;
  }

  void start(int gpu) {
    ring = {gpu};
    used.assign(static_cast<std::size_t>(p), 0);
    used[static_cast<std::size_t>(gpu)] = 1;
  }
};

}  // namespace

namespace {

// The rings over GPUs 0 .. p-1 (one node: all of it; a cluster: node 0, whose ranks are its local
// indices), on their direct links; with `entries`, paths from each entry to another (MeshSearch).
std::vector<std::vector<int>> rings_over_first(const topo::Topology& topo, int p, const std::vector<int>& entries = {}) {
  if (p < 2 || topo.has_nvswitch()) return {};
  // Direct links: the best route between the pair is one link from GPU to GPU.
  std::vector<std::vector<double>> bandwidth(p, std::vector<double>(p, 0.0));
  double slowest = 0.0;
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < p; ++b) {
      if (a == b) continue;
      const topo::Route& r = topo.route(a, b);
      if (r.links.size() != 1) continue;
      const topo::Link& l = topo.link(r.links[0]);
      if (l.src != topo.gpu(a).vertex || l.dst != topo.gpu(b).vertex) continue;
      bandwidth[a][b] = l.bandwidth.bytes_per_s;
      if (slowest == 0.0 || bandwidth[a][b] < slowest) slowest = bandwidth[a][b];
    }
  }
  if (slowest == 0.0) return {};
  MeshSearch search;
  search.p = p;
  search.capacity.assign(p, std::vector<int>(p, 0));
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < p; ++b) {
      if (bandwidth[a][b] > 0.0) search.capacity[a][b] = static_cast<int>(std::floor(bandwidth[a][b] / slowest + 1e-9));
    }
  }
  if (!entries.empty()) {
    // One path per NIC, ending where another NIC takes it out.
    search.starts = entries;
    search.may_end.assign(static_cast<std::size_t>(p), 0);
    for (int e : entries) search.may_end[static_cast<std::size_t>(e)] = 1;
    search.second_taken.assign(static_cast<std::size_t>(p), 0);
    search.bound = entries.size();
    search.start(entries.front());
    search.extend();
    return search.best;
  }
  // No GPU can send more rings than its links carry.
  search.bound = std::numeric_limits<std::size_t>::max();
  for (int a = 0; a < p; ++a) {
    std::size_t out = 0;
    for (int b = 0; b < p; ++b) out += static_cast<std::size_t>(search.capacity[a][b]);
    search.bound = std::min(search.bound, out);
  }
  search.start(0);
  search.extend();
  return search.best;
}

// Whether a crossing from node 0 to node 1 relays over a direct link to the GPU of the receiver's rail
// (NCCL's PXN) rather than leaving from the sender's own NIC (RCCL below 64 ranks: topology/src/routes.cpp).
bool crossings_relay(const topo::Topology& topo) {
  const int g = topo.gpus_per_node();
  const topo::Route& r = topo.route(0, g + 1);
  if (r.links.empty()) return true;
  const topo::LinkKind first = topo.link(r.links.front()).kind;
  return first == topo::LinkKind::Xgmi || first == topo::LinkKind::NvLink;
}

}  // namespace

std::vector<std::vector<int>> mesh_rings(const topo::Topology& topo) {
  if (topo.num_nodes() != 1) return {};
  return rings_over_first(topo, topo.num_gpus());
}

std::vector<std::vector<int>> node_mesh_rings(const topo::Topology& topo, const std::vector<int>& entries) {
  if (topo.num_nodes() < 2 || topo.gpus_per_node() < 2 || topo.has_nvswitch()) return {};
  return rings_over_first(topo, topo.gpus_per_node(), crossings_relay(topo) ? std::vector<int>{} : entries);
}

}  // namespace ccforge::sim
