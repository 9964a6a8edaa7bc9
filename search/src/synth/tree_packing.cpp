// Spanning-tree packing over the packing graph (packing_graph.cpp): GPUs, relays, and the links each
// GPU-to-GPU tree edge loads. Rates are found to one part in a million of the narrowest link.
// Bound (ForestColl, arXiv 2402.06787, via Edmonds' arborescence packing theorem): every root can
// spread its data at rate x at once iff, with a super source s and an edge s->u of capacity x into
// every GPU u, the max flow from s to every GPU v is at least p*x; relays (switches, CPUs) only
// forward. Binary search on x with Boost.Graph max-flow gives the optimal rate. Packing: trees are
// grown greedily (Prim-style) from each root, each new edge chosen to maximise the bandwidth share
// cap/(load+1) on the busiest link it loads; the rate the packing achieves is reported next to the
// optimum rather than assumed. A local search then regrows single trees against the others' load
// while that lowers the bottleneck link's load per capacity.
#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "tree_packing.hpp"

namespace ccforge::search {

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, long,
                    boost::property<boost::edge_residual_capacity_t, long,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

// Max-flow runs on integer capacities (push-relabel's flow check is exact): capacities in units of a
// millionth of the narrowest link, so the optimal rate is found to one part in a million.
// The network is built once: push-relabel starts every call from the capacities, so the binary search
// only resets the super source's arcs (the last vertex, feeding every GPU at rate x) between calls.
class FlowNetwork {
 public:
  explicit FlowNetwork(const PackingGraph& graph) : g_(static_cast<std::size_t>(graph.vertices + 1)), gpus_(graph.gpus) {
    constexpr double kStepsPerNarrowestLink = 1e6;
    double narrowest = 0.0;
    for (const auto& link : graph.links)
      if (link.bytes_per_s > 0.0 && (narrowest == 0.0 || link.bytes_per_s < narrowest)) narrowest = link.bytes_per_s;
    unit_ = narrowest / kStepsPerNarrowestLink;
    for (const auto& link : graph.links) {
      const long cap = std::lround(link.bytes_per_s / unit_);
      total_capacity_ += cap;
      if (cap > 0) add_arc(link.from, link.to, cap);
    }
    source_ = graph.vertices;
    for (int u = 0; u < gpus_; ++u) source_arcs_.push_back(add_arc(source_, u, 0));
  }

  long total_capacity() const { return total_capacity_; }
  double unit() const { return unit_; }

  // Every root can spread its data at x integer steps at once.
  bool rate_feasible(long x) {
    auto cap_map = boost::get(boost::edge_capacity, g_);
    for (auto arc : source_arcs_) cap_map[arc] = x;
    for (int v = 0; v < gpus_; ++v)
      if (boost::push_relabel_max_flow(g_, static_cast<std::size_t>(source_), static_cast<std::size_t>(v)) < gpus_ * x) return false;
    return true;
  }

 private:
  Traits::edge_descriptor add_arc(int u, int v, long cap) {
    auto cap_map = boost::get(boost::edge_capacity, g_);
    auto rev_map = boost::get(boost::edge_reverse, g_);
    auto e = boost::add_edge(static_cast<std::size_t>(u), static_cast<std::size_t>(v), g_).first;
    auto r = boost::add_edge(static_cast<std::size_t>(v), static_cast<std::size_t>(u), g_).first;
    cap_map[e] = cap;
    cap_map[r] = 0;
    rev_map[e] = r;
    rev_map[r] = e;
    return e;
  }

  FlowGraph g_;
  int gpus_;
  int source_ = 0;
  double unit_ = 1.0;  // bytes/s per integer step
  long total_capacity_ = 0;
  std::vector<Traits::edge_descriptor> source_arcs_;
};

double optimal_rate(const PackingGraph& graph) {
  FlowNetwork net(graph);
  long lo = 0, hi = net.total_capacity();  // lo feasible, hi + 1 not
  while (lo < hi) {
    const long mid = lo + (hi - lo + 1) / 2;
    if (net.rate_feasible(mid)) lo = mid;
    else hi = mid - 1;
  }
  return static_cast<double>(lo) * net.unit();
}

using Load = std::vector<int>;  // tree edges on each link

void add_edge_load(const PackingGraph& graph, Load& load, int u, int v, int delta) {
  for (int l : graph.edge_links[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)]) load[static_cast<std::size_t>(l)] += delta;
}

// The bandwidth one more tree edge u->v would get: its most loaded link's capacity shared with the
// tree edges already on it.
double share_of(const PackingGraph& graph, const Load& load, int u, int v) {
  double share = std::numeric_limits<double>::infinity();
  for (int l : graph.edge_links[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)])
    share = std::min(share, graph.links[static_cast<std::size_t>(l)].bytes_per_s / (load[static_cast<std::size_t>(l)] + 1));
  return share;
}

bool is_edge(const PackingGraph& graph, int u, int v) {
  return !graph.edge_links[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)].empty();
}

GenRequest::Tree grow_tree(const PackingGraph& graph, Load& load, int root) {
  const int p = graph.gpus;
  GenRequest::Tree t{root, std::vector<int>(static_cast<std::size_t>(p), -1)};
  std::vector<bool> in_tree(static_cast<std::size_t>(p), false);
  in_tree[static_cast<std::size_t>(root)] = true;
  for (int added = 1; added < p; ++added) {
    int best_u = -1, best_v = -1;
    double best_share = 0.0;
    for (int u = 0; u < p; ++u) {
      if (!in_tree[static_cast<std::size_t>(u)]) continue;
      for (int v = 0; v < p; ++v) {
        if (in_tree[static_cast<std::size_t>(v)] || !is_edge(graph, u, v)) continue;
        const double share = share_of(graph, load, u, v);
        if (share > best_share) {
          best_share = share;
          best_u = u;
          best_v = v;
        }
      }
    }
    in_tree[static_cast<std::size_t>(best_v)] = true;
    t.parent[static_cast<std::size_t>(best_v)] = best_u;
    add_edge_load(graph, load, best_u, best_v, +1);
  }
  return t;
}

void add_load(const PackingGraph& graph, Load& load, const GenRequest::Tree& t, int delta) {
  for (std::size_t v = 0; v < t.parent.size(); ++v)
    if (t.parent[v] >= 0) add_edge_load(graph, load, t.parent[v], static_cast<int>(v), delta);
}

// The packing's quality: the busiest link's load per capacity (lower is better), then how many links
// sit at that level, so that moves which thin out the bottleneck count as progress.
std::pair<double, int> congestion(const PackingGraph& graph, const Load& load) {
  double worst = 0.0;
  int at_worst = 0;
  for (std::size_t l = 0; l < graph.links.size(); ++l) {
    if (load[l] == 0) continue;
    const double ratio = load[l] / graph.links[l].bytes_per_s;
    if (ratio > worst * (1 + 1e-12)) {
      worst = ratio;
      at_worst = 1;
    } else if (ratio >= worst * (1 - 1e-12)) {
      ++at_worst;
    }
  }
  return {worst, at_worst};
}

// Local search: regrow one tree at a time against the others' load and keep the change when the
// congestion drops; stops at a pass without improvement (or after a fixed number of passes).
void improve(const PackingGraph& graph, Load& load, std::vector<GenRequest::Tree>& trees) {
  constexpr int kMostPasses = 50;
  for (int pass = 0; pass < kMostPasses; ++pass) {
    bool improved = false;
    for (auto& tree : trees) {
      const auto before = congestion(graph, load);
      add_load(graph, load, tree, -1);
      GenRequest::Tree regrown = grow_tree(graph, load, tree.root);  // adds its own load
      if (congestion(graph, load) < before) {
        tree = std::move(regrown);
        improved = true;
      } else {
        add_load(graph, load, regrown, -1);
        add_load(graph, load, tree, +1);
      }
    }
    if (!improved) return;
  }
}

bool strongly_connected(const PackingGraph& graph) {
  const int p = graph.gpus;
  for (int dir = 0; dir < 2; ++dir) {
    std::vector<bool> seen(static_cast<std::size_t>(p), false);
    std::vector<int> stack{0};
    seen[0] = true;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int v = 0; v < p; ++v) {
        const bool edge = dir == 0 ? is_edge(graph, u, v) : is_edge(graph, v, u);
        if (edge && !seen[static_cast<std::size_t>(v)]) {
          seen[static_cast<std::size_t>(v)] = true;
          stack.push_back(v);
        }
      }
    }
    if (std::find(seen.begin(), seen.end(), false) != seen.end()) return false;
  }
  return true;
}

}  // namespace

std::optional<TreePacking> grow_packing(const PackingGraph& graph, int trees_per_root) {
  const int p = graph.gpus;
  if (p < 2 || trees_per_root < 1 || !strongly_connected(graph)) return std::nullopt;
  TreePacking packing;
  packing.trees_per_root = trees_per_root;
  Load load(graph.links.size(), 0);
  // Round-robin over roots so that no root gets all the best links.
  std::vector<GenRequest::Tree> round_major;
  for (int t = 0; t < trees_per_root; ++t)
    for (int i = 0; i < p; ++i) round_major.push_back(grow_tree(graph, load, (i + t) % p));
  improve(graph, load, round_major);
  for (int r = 0; r < p; ++r)
    for (const auto& tree : round_major)
      if (tree.root == r) packing.trees.push_back(tree);
  // Each tree carries 1/T of its root's data; the busiest link relative to its capacity sets the rate.
  packing.packed_rate = Bandwidth{trees_per_root / congestion(graph, load).first};
  return packing;
}

std::optional<TreePacking> pack_trees(const PackingGraph& graph, int trees_per_root) {
  std::optional<TreePacking> packing = grow_packing(graph, trees_per_root);
  if (packing) packing->optimal_rate = Bandwidth{optimal_rate(graph)};
  return packing;
}

std::optional<TreePacking> pack_trees(const CapacityMatrix& cap, int trees_per_root) {
  return pack_trees(packing_graph(cap), trees_per_root);
}

}  // namespace ccforge::search
