// Which packed trees the tuner hands to `treepack`. On switch graphs a packing is offered only where
// it beats the ring on the model both are simulated with: the busiest link's load per capacity, with a
// link's load counted in units of one rank's share of the data (N/p). A ring moves p-1 shares over each
// of its hops (allgather, reduce-scatter) or 2(p-1) (allreduce); T packed trees per root move 1/T share
// per tree edge, over the links packing_graph() assigns it. On an NVSwitch both load every GPU port
// equally, so nothing is offered there; a PCIe tree's CPU link or a GPU with fewer NVLinks is where
// trees can route around the bottleneck a ring must cross. Broadcast and reduce are judged as
// allgather and reduce-scatter, whose root-0 trees they use.
#include <algorithm>
#include <limits>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "tree_packing.hpp"

namespace ccforge::search {

namespace {

constexpr int kMostTreesPerRoot = 8;

// Load per capacity of the busiest link, in shares per (byte/s).
double busiest(const PackingGraph& graph, const std::vector<double>& load) {
  double worst = 0.0;
  for (std::size_t l = 0; l < graph.links.size(); ++l) worst = std::max(worst, load[l] / graph.links[l].bytes_per_s);
  return worst;
}

double ring_cost(const topo::Topology& topo, ir::Collective coll) {
  const int p = topo.num_gpus();
  const auto ring = find_rings(topo, 1).front();
  const PackingGraph down = packing_graph(topo, TreeTraffic::Down);
  std::vector<double> load(down.links.size(), 0.0);
  const double shares = (coll == ir::Collective::AllReduce ? 2.0 : 1.0) * (p - 1);
  for (int x = 0; x < p; ++x) {
    const int u = ring[static_cast<std::size_t>(x)], v = ring[static_cast<std::size_t>((x + 1) % p)];
    const auto& links = down.edge_links[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)];
    if (links.empty()) return std::numeric_limits<double>::infinity();  // a hop relays through a GPU
    for (int l : links) load[static_cast<std::size_t>(l)] += shares;
  }
  return busiest(down, load);
}

double packing_cost(const PackingGraph& graph, const TreePacking& packing) {
  std::vector<double> load(graph.links.size(), 0.0);
  for (const auto& tree : packing.trees)
    for (std::size_t v = 0; v < tree.parent.size(); ++v)
      if (tree.parent[v] >= 0)
        for (int l : graph.edge_links[static_cast<std::size_t>(tree.parent[v])][v])
          load[static_cast<std::size_t>(l)] += 1.0 / packing.trees_per_root;
  return busiest(graph, load);
}

// No packing of any size beats this rate. Every tree enters each GPU but its root once, over a route
// ending at that GPU (down traffic) and, up, leaves it over a route starting there, so some link into
// (out of) a GPU v carries at least T(p-1) edges over v's total in (out) capacity; and all p*T trees'
// p-1 edges load at least the shortest edge's link count, over all links' capacity. With T trees per
// root the rate is T over the busiest link's load per capacity, so T cancels.
double packed_rate_ceiling(const PackingGraph& graph, TreeTraffic traffic) {
  const int p = graph.gpus;
  std::vector<double> into(static_cast<std::size_t>(graph.vertices), 0.0), out_of(into);
  double total = 0.0;
  for (const auto& link : graph.links) {
    into[static_cast<std::size_t>(link.to)] += link.bytes_per_s;
    out_of[static_cast<std::size_t>(link.from)] += link.bytes_per_s;
    total += link.bytes_per_s;
  }
  std::size_t fewest_links = std::numeric_limits<std::size_t>::max();
  for (const auto& row : graph.edge_links)
    for (const auto& links : row)
      if (!links.empty()) fewest_links = std::min(fewest_links, links.size());
  double ceiling = total / (static_cast<double>(p) * (p - 1) * static_cast<double>(fewest_links));
  for (int v = 0; v < p; ++v) {
    if (traffic != TreeTraffic::Up) ceiling = std::min(ceiling, into[static_cast<std::size_t>(v)] / (p - 1));
    if (traffic != TreeTraffic::Down) ceiling = std::min(ceiling, out_of[static_cast<std::size_t>(v)] / (p - 1));
  }
  return ceiling;
}

}  // namespace

std::vector<std::vector<GenRequest::Tree>> synthesis_tree_sets(const topo::Topology& topo, ir::Collective coll) {
  if (topo.num_nodes() > 1) return {};
  const PackingGraph graph = packing_graph(topo, tree_traffic(coll));
  std::optional<TreePacking> single = grow_packing(graph, 1), best = single;
  if (!single) return {};
  // A packing at the ceiling cannot be beaten by more trees per root, so they are not grown (on the
  // MI300X mesh one tree per root reaches it). The margin covers rounding in the two rates; the
  // comparison below needs a 1e-9 gain.
  const double ceiling = packed_rate_ceiling(graph, tree_traffic(coll)) * (1 + 1e-12);
  for (int t = 2; t <= kMostTreesPerRoot && best->packed_rate.bytes_per_s * (1 + 1e-9) < ceiling; ++t) {
    auto packing = grow_packing(graph, t);
    if (packing && packing->packed_rate.bytes_per_s > best->packed_rate.bytes_per_s * (1 + 1e-9)) best = std::move(packing);
  }
  if (graph.switched && !(packing_cost(graph, *best) < ring_cost(topo, coll) * (1 - 1e-9))) return {};
  std::vector<std::vector<GenRequest::Tree>> sets{single->trees};
  if (best->trees_per_root > 1) sets.push_back(best->trees);
  return sets;
}

}  // namespace ccforge::search
