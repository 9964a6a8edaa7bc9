// The graph tree packing runs on, built from the routes the simulator uses: a transfer from GPU u to
// GPU v occupies every link of topo.route(u, v) (sim/src/lowering.cpp), so a tree edge u->v loads
// exactly those links. Switches and CPUs stay relay vertices, as in ForestColl (arXiv 2402.06787):
// trees pass through them but only GPUs end a tree edge.
#include <map>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

TreeTraffic tree_traffic(ir::Collective coll) {
  switch (coll) {
    case ir::Collective::AllReduce: return TreeTraffic::Both;
    case ir::Collective::ReduceScatter:
    case ir::Collective::Reduce: return TreeTraffic::Up;
    default: return TreeTraffic::Down;
  }
}

namespace {

// Dense indices for the topology's vertices and links as they turn up on routes, GPUs first.
class GraphBuilder {
 public:
  explicit GraphBuilder(const topo::Topology& topo) : topo_(topo) {
    graph_.gpus = topo.num_gpus();
    graph_.vertices = graph_.gpus;
    for (int r = 0; r < graph_.gpus; ++r) vertex_[topo.gpu(r).vertex.v] = r;
  }

  // The route's links as packing-graph link indices; empty when it relays through another GPU.
  std::vector<int> route_links(int src, int dst) {
    const topo::Route& route = topo_.route(src, dst);
    for (std::size_t i = 0; i + 1 < route.links.size(); ++i)
      if (topo_.vertex(topo_.link(route.links[i]).dst).kind == topo::VertexKind::Gpu) return {};
    std::vector<int> out;
    for (LinkId id : route.links) out.push_back(link_index(id));
    return out;
  }

  PackingGraph take() { return std::move(graph_); }

 private:
  int vertex_index(VertexId id) {
    auto [it, added] = vertex_.try_emplace(id.v, graph_.vertices);
    if (added) ++graph_.vertices;
    return it->second;
  }

  int link_index(LinkId id) {
    auto found = link_.find(id.v);
    if (found != link_.end()) return found->second;
    const topo::Link& link = topo_.link(id);
    graph_.links.push_back({vertex_index(link.src), vertex_index(link.dst), link.bandwidth.bytes_per_s});
    return link_[id.v] = static_cast<int>(graph_.links.size()) - 1;
  }

  const topo::Topology& topo_;
  PackingGraph graph_;
  std::map<std::uint32_t, int> vertex_, link_;
};

}  // namespace

PackingGraph packing_graph(const topo::Topology& topo, TreeTraffic traffic) {
  const int p = topo.num_gpus();
  GraphBuilder builder(topo);
  std::vector<std::vector<std::vector<int>>> edges(static_cast<std::size_t>(p), std::vector<std::vector<int>>(static_cast<std::size_t>(p)));
  bool switched = false;
  for (int u = 0; u < p; ++u)
    for (int v = 0; v < p; ++v) {
      if (u == v) continue;
      std::vector<int> down = builder.route_links(u, v), up = builder.route_links(v, u);
      if (down.empty() || up.empty()) continue;  // a tree edge needs a relay-free route both ways
      switched |= down.size() > 1;
      auto& e = edges[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)];
      if (traffic != TreeTraffic::Up) e.insert(e.end(), down.begin(), down.end());
      if (traffic != TreeTraffic::Down) e.insert(e.end(), up.begin(), up.end());
    }
  PackingGraph graph = builder.take();
  graph.edge_links = std::move(edges);
  graph.switched = switched;
  return graph;
}

PackingGraph packing_graph(const CapacityMatrix& cap) {
  PackingGraph graph;
  graph.gpus = graph.vertices = static_cast<int>(cap.size());
  graph.edge_links.assign(cap.size(), std::vector<std::vector<int>>(cap.size()));
  for (std::size_t u = 0; u < cap.size(); ++u)
    for (std::size_t v = 0; v < cap.size(); ++v) {
      if (u == v || cap[u][v] <= 0.0) continue;
      graph.edge_links[u][v] = {static_cast<int>(graph.links.size())};
      graph.links.push_back({static_cast<int>(u), static_cast<int>(v), cap[u][v]});
    }
  return graph;
}

}  // namespace ccforge::search
