#include "routes.hpp"

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace ccforge::topo {
namespace {

// Link weights encode NCCL's preference (graph.h path classes, paths.cc ncclTopoSetPaths): any path that
// avoids a worse kind of link beats every path that uses one, so each level costs kLevelBase times the one
// below (paths have far fewer than kLevelBase hops). Within a level fewer hops win, as in NCCL's
// breadth-first search, which never replaces a path by a longer one; then wider links win: the bandwidth
// term adds less than kBandwidthTieBreak of a hop.
constexpr double kLevelBase = 1000.0;
constexpr double kBandwidthTieBreak = 0.01;
// NIC choice in clusters, as NCCL's PXN ("receiving locally and sending remotely", src/graph/paths.cc):
// - a GPU sends into the network only from its own NIC, or relays over NVLink to the GPU whose own NIC it
//   is (ncclTopoGetLocalGpu). NCCL sends directly from a GPU that shares a PCIe switch with a NIC (NDv4),
//   but its ring search charges every path's bandwidth to its links, so two channels never load one GPU's
//   PCIe uplink; a route chosen per pair cannot see the other channels, and sending only from the NIC's own
//   GPU gives the same spread;
// - a route entering a node through the receiver's own NIC beats one through another NIC behind the same
//   switch (NDv4) even when the sender needs an NVLink relay for it: the bonus outweighs any NVLink hops
//   (about 1 each) and is a tenth of one PCIe hop (kLevelBase), so it never changes which kinds of link a
//   route crosses.
constexpr double kOwnNicIngressBonus = 100.0;

int level(LinkKind kind) {
  switch (kind) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch:
    case LinkKind::Xgmi: return 0;
    case LinkKind::Pcie: return 1;
    case LinkKind::CpuInterconnect: return 2;
    case LinkKind::Nic:
    case LinkKind::Network: return 3;
  }
  return 3;
}

double link_weight(const Link& l, double widest) {
  const double narrowness = 1.0 - l.bandwidth.bytes_per_s / widest;  // 0 for the widest link, < 1 always
  return std::pow(kLevelBase, level(l.kind)) * (1.0 + kBandwidthTieBreak * narrowness);
}

bool is_host_link(LinkKind kind) { return kind == LinkKind::Pcie || kind == LinkKind::CpuInterconnect; }

// Cheapest path from `from` to `to` over PCIe and CPU links only (a GPU and its NIC inside one node), never
// relaying through another GPU or NIC; empty when there is none.
std::vector<LinkId> host_path(const GraphData& g, const std::vector<std::vector<std::uint32_t>>& host_out, double widest,
                              VertexId from, VertexId to) {
  std::map<std::uint32_t, std::pair<double, std::uint32_t>> best;  // vertex -> (weight, link in)
  std::set<std::pair<double, std::uint32_t>> frontier{{0.0, from.v}};
  best[from.v] = {0.0, std::numeric_limits<std::uint32_t>::max()};
  while (!frontier.empty()) {
    const auto [d, v] = *frontier.begin();
    frontier.erase(frontier.begin());
    if (v == to.v) break;
    const VertexKind kind = g.vertices[v].kind;
    if (v != from.v && (kind == VertexKind::Gpu || kind == VertexKind::Nic)) continue;
    for (std::uint32_t i : host_out[v]) {
      const std::uint32_t w = g.links[i].dst.v;
      const double nd = d + link_weight(g.links[i], widest);
      const auto it = best.find(w);
      if (it != best.end() && it->second.first <= nd) continue;
      if (it != best.end()) frontier.erase({it->second.first, w});
      best[w] = {nd, i};
      frontier.insert({nd, w});
    }
  }
  std::vector<LinkId> path;
  if (!best.count(to.v)) return path;
  for (std::uint32_t v = to.v; v != from.v; v = g.links[best[v].second].src.v) path.push_back(LinkId{best[v].second});
  std::reverse(path.begin(), path.end());
  return path;
}

// Whether the runtime relays a GPU's network traffic through the peer-rail GPU's NIC (PXN). NCCL: on
// (NCCL_PXN_DISABLE 0, src/graph/paths.cc). RCCL: off by default (ROCm/rccl src/graph/paths.cc
// `NCCL_PARAM(PxnDisable, "PXN_DISABLE", 1)`), and on gfx942 only from 64 ranks on (src/rccl_wrap.cc
// rcclSetPxn: `ranksThreshold = 64` for gfx942, @ee075f8), so a 2-node MI300X job sends from each GPU's
// own NIC. The communicator is every GPU of the topology.
bool pxn_enabled(const std::vector<GpuInfo>& gpus) {
  constexpr std::size_t kRcclGfx942PxnRanks = 64;
  const bool rccl = std::any_of(gpus.begin(), gpus.end(), [](const GpuInfo& g) { return g.model->arch == GpuArch::Cdna3; });
  return !rccl || gpus.size() >= kRcclGfx942PxnRanks;
}

}  // namespace

// Routing graph: the topology's vertices, plus one "arrival" vertex per GPU. PCIe links into a GPU end
// at its arrival vertex, which has no way out, so routes never relay through a GPU's PCIe port; NVLink
// relays (NCCL's NVB and PXN paths) enter the GPU vertex itself.
RouteFinder::RouteFinder(const GraphData& graph)
    : data_(graph), builder_(std::make_unique<Builder>(graph.vertices.size() + graph.gpus.size())), fabric_(graph) {
  for (const GpuInfo& gpu : graph.gpus) {
    const auto node = static_cast<std::size_t>(gpu.node), local = static_cast<std::size_t>(gpu.local_index);
    if (rank_at_.size() <= node) rank_at_.resize(node + 1);
    if (rank_at_[node].size() <= local) rank_at_[node].resize(local + 1, -1);
    rank_at_[node][local] = gpu.rank;
  }
  relays_to_peer_nic_ = pxn_enabled(graph.gpus);
  fastest_nic_port_.assign(rank_at_.size(), 0.0);
  for (const Link& l : graph.links) {
    const Vertex& from = graph.vertices[l.src.v];
    if (l.kind != LinkKind::Nic || from.kind != VertexKind::Nic || from.node < 0) continue;
    if (static_cast<std::size_t>(from.node) >= fastest_nic_port_.size()) continue;  // a node without GPUs
    auto& fastest = fastest_nic_port_[static_cast<std::size_t>(from.node)];
    fastest = std::max(fastest, l.bandwidth.bytes_per_s);
  }
  std::vector<std::size_t> arrival(graph.vertices.size(), std::numeric_limits<std::size_t>::max());
  for (std::size_t r = 0; r < graph.gpus.size(); ++r) arrival[graph.gpus[r].vertex.v] = graph.vertices.size() + r;
  double widest = 1.0;
  for (const Link& l : graph.links) widest = std::max(widest, l.bandwidth.bytes_per_s);
  auto routed_dst = [&](const Link& l) {
    const bool into_gpu_by_pcie = l.kind == LinkKind::Pcie && graph.vertices[l.dst.v].kind == VertexKind::Gpu;
    return into_gpu_by_pcie ? arrival[l.dst.v] : l.dst.v;
  };
  const bool networked = std::any_of(graph.links.begin(), graph.links.end(), [](const Link& l) { return l.kind == LinkKind::Nic; });
  std::set<std::uint32_t> owned_nics;
  for (const GpuInfo& gpu : graph.gpus) {
    if (networked && gpu.nearest_nic) owned_nics.insert(gpu.nearest_nic->v);
  }
  for (std::uint32_t i = 0; i < graph.links.size(); ++i) {
    const Link& l = graph.links[i];
    if (is_host_link(l.kind) && owned_nics.count(l.dst.v)) continue;  // only from the owner: add_own_nic_paths
    add_edge(l.src.v, routed_dst(l), link_weight(l, widest), i);
  }
  if (networked) add_own_nic_paths(widest, routed_dst);
  freeze();
}

void RouteFinder::freeze() {
  const std::size_t n = boost::num_vertices(*builder_);
  std::vector<std::pair<std::size_t, std::size_t>> ends;
  std::vector<EdgeProps> props;
  const auto weight = boost::get(boost::edge_weight, *builder_);
  const auto link = boost::get(boost::edge_index, *builder_);
  for (std::size_t u = 0; u < n; ++u) {
    for (const auto& e : boost::make_iterator_range(boost::out_edges(u, *builder_))) {
      ends.emplace_back(u, boost::target(e, *builder_));
      props.push_back(EdgeProps{weight[e], link[e]});
    }
  }
  graph_ = Graph(boost::edges_are_sorted, ends.begin(), ends.end(), props.begin(), n);
  builder_.reset();
}

void RouteFinder::add_edge(std::size_t src, std::size_t dst, double weight, std::uint32_t link) {
  boost::add_edge(src, dst, Builder::edge_property_type(weight, Builder::edge_property_type::next_type(link)), *builder_);
}

// Each GPU's paths to and from its own NIC are added as private chains of vertices (the same links, so
// routes through them are real): the way out is the only way from a GPU into a NIC it owns; the way in
// costs slightly less than the shared one.
template <class RoutedDst>
void RouteFinder::add_own_nic_paths(double widest, const RoutedDst& routed_dst) {
  std::vector<std::vector<std::uint32_t>> host_out(data_.vertices.size());
  for (std::uint32_t i = 0; i < data_.links.size(); ++i) {
    if (is_host_link(data_.links[i].kind)) host_out[data_.links[i].src.v].push_back(i);
  }
  auto add_chain = [&](const std::vector<LinkId>& path, double bonus) {
    std::size_t from = data_.links[path.front().v].src.v;
    for (std::size_t k = 0; k < path.size(); ++k) {
      const Link& l = data_.links[path[k].v];
      const std::size_t to = k + 1 == path.size() ? routed_dst(l) : boost::add_vertex(*builder_);
      add_edge(from, to, link_weight(l, widest) - (k == 0 ? bonus : 0.0), path[k].v);
      from = to;
    }
  };
  for (const GpuInfo& gpu : data_.gpus) {
    if (!gpu.nearest_nic) continue;
    const std::vector<LinkId> in = host_path(data_, host_out, widest, *gpu.nearest_nic, gpu.vertex);
    const std::vector<LinkId> out = host_path(data_, host_out, widest, gpu.vertex, *gpu.nearest_nic);
    if (!in.empty()) add_chain(in, kOwnNicIngressBonus);
    if (!out.empty()) add_chain(out, 0.0);
  }
}

namespace {

struct SearchDone {};  // thrown to end a targeted search (Boost.Graph's way to stop Dijkstra early)

// Ends Dijkstra as soon as the route to one GPU is decided, so a route inside a node settles only the
// node's few vertices. The route ends at the GPU itself or at its arrival vertex, whichever is nearer (the
// GPU on a tie, as RouteFinder::tree decides). Vertices are examined in order of final distance and a
// vertex's predecessor is final when it is examined, so the search is a prefix of the full one and its
// path the full tree's.
struct StopAtEnd {
  using event_filter = boost::on_examine_vertex;
  std::size_t direct, arrival;
  const std::vector<double>* dist;
  std::size_t* end;  // set when decided; arrival provisionally, until a farther vertex is examined
  template <class Vertex, class G>
  void operator()(Vertex v, const G&) const {
    if (*end == arrival && (*dist)[v] > (*dist)[arrival]) throw SearchDone{};
    if (v == direct) {
      *end = direct;
      throw SearchDone{};
    }
    if (v == arrival) *end = arrival;
  }
};

Route local_route() {
  Route route;
  route.path_class = PathClass::Loc;
  route.bottleneck = Bandwidth{std::numeric_limits<double>::infinity()};
  return route;
}

}  // namespace

template <class Visitor>
void RouteFinder::search(std::size_t src, std::vector<double>& dist, std::vector<Graph::edge_descriptor>& pred, Visitor also) const {
  const auto index = boost::get(boost::vertex_index, graph_);
  boost::dijkstra_shortest_paths(
      graph_, src,
      boost::weight_map(boost::get(&EdgeProps::weight, graph_))
          .distance_map(boost::make_iterator_property_map(dist.begin(), index))
          .distance_inf(std::numeric_limits<double>::infinity())
          .visitor(boost::make_dijkstra_visitor(std::make_pair(
              boost::record_edge_predecessors(boost::make_iterator_property_map(pred.begin(), index), boost::on_edge_relaxed()),
              also))));
}

RouteTree RouteFinder::tree(int src_rank) const {
  const std::size_t n = boost::num_vertices(graph_);
  const std::size_t src = data_.gpus[static_cast<std::size_t>(src_rank)].vertex.v;
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  std::vector<Graph::edge_descriptor> pred(n);
  search(src, dist, pred, boost::null_visitor());

  RouteTree tree;
  tree.src_rank = src_rank;
  tree.pred_vertex.assign(n, RouteTree::kNone);
  tree.pred_link.assign(n, RouteTree::kNone);
  for (std::size_t v = 0; v < n; ++v) {
    if (v == src || std::isinf(dist[v])) continue;
    tree.pred_vertex[v] = static_cast<std::uint32_t>(boost::source(pred[v], graph_));
    tree.pred_link[v] = graph_[pred[v]].link;
  }
  tree.end.assign(data_.gpus.size(), RouteTree::kNone);
  for (std::size_t dst = 0; dst < data_.gpus.size(); ++dst) {
    const std::size_t direct = data_.gpus[dst].vertex.v;
    const std::size_t arrival = data_.vertices.size() + dst;
    const std::size_t end = dist[arrival] < dist[direct] ? arrival : direct;
    if (!std::isinf(dist[end])) tree.end[dst] = static_cast<std::uint32_t>(end);
  }
  return tree;
}

Route RouteFinder::route(const RouteTree& tree, int dst_rank) const {
  if (dst_rank == tree.src_rank) return local_route();
  const std::uint32_t end = tree.end[static_cast<std::size_t>(dst_rank)];
  if (end == RouteTree::kNone) return Route{};  // DIS with no links
  const std::uint32_t src = data_.gpus[static_cast<std::size_t>(tree.src_rank)].vertex.v;
  return route_over(trace(src, end, [&](std::uint32_t v) { return std::pair{tree.pred_vertex[v], tree.pred_link[v]}; }));
}

// Records each vertex the search reaches (the source and every vertex first relaxed), so that only
// their distances and colours need resetting afterwards.
struct RecordReached {
  using event_filter = boost::on_discover_vertex;
  std::vector<std::size_t>* reached;
  template <class Vertex, class G>
  void operator()(Vertex v, const G&) const {
    reached->push_back(v);
  }
};

Route RouteFinder::route_to(int src_rank, int dst_rank) const {
  if (dst_rank == src_rank) return local_route();
  std::optional<std::vector<LinkId>> links =
      shortest_links(data_.gpus[static_cast<std::size_t>(src_rank)].vertex.v, data_.gpus[static_cast<std::size_t>(dst_rank)].vertex.v,
                     data_.vertices.size() + static_cast<std::size_t>(dst_rank));
  return links ? route_over(std::move(*links)) : Route{};  // DIS with no links
}

std::optional<std::vector<LinkId>> RouteFinder::shortest_links(std::size_t from, std::size_t direct, std::size_t arrival) const {
  // The search boost::dijkstra_shortest_paths runs (it initializes every vertex, then runs
  // dijkstra_shortest_paths_no_init's body: the same 4-ary heap, compare and combine, so the same ties),
  // on buffers kept per thread: a route inside a node or under one leaf reaches a few thousand vertices,
  // and writing all ~400,000 of a 16,384-GPU cluster's distances, predecessors, colours and heap positions
  // per route cost more than that search (the heap positions alone, which the _no_init form allocates and
  // zeroes per call, were 65 % of a route's time). Distances and colours are left infinite and white again
  // for the next route; predecessors are read only along the route, and heap positions only of vertices
  // in the heap, both written by this search.
  const std::size_t n = boost::num_vertices(graph_);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  thread_local std::vector<double> dist;
  thread_local std::vector<Graph::edge_descriptor> pred;
  thread_local std::vector<boost::default_color_type> color;
  thread_local std::vector<std::size_t> heap_position;
  thread_local std::vector<std::size_t> reached;
  if (dist.size() < n) dist.resize(n, kInf);
  if (pred.size() < n) pred.resize(n);
  if (color.size() < n) color.resize(n, boost::white_color);
  if (heap_position.size() < n) heap_position.resize(n);
  reached.clear();
  struct Reset {  // also when the search throws (out of memory), so the next one starts clean
    ~Reset() {
      for (std::size_t v : reached) dist[v] = std::numeric_limits<double>::infinity(), color[v] = boost::white_color;
    }
  } reset;
  const auto index = boost::get(boost::vertex_index, graph_);
  constexpr std::size_t kUndecided = std::numeric_limits<std::size_t>::max();
  std::size_t end = kUndecided;
  const StopAtEnd stop{direct, arrival, &dist, &end};
  dist[from] = 0.0;
  const auto distance = boost::make_iterator_property_map(dist.begin(), index);
  using Queue = boost::d_ary_heap_indirect<std::size_t, 4, decltype(boost::make_iterator_property_map(heap_position.begin(), index)),
                                           decltype(distance), std::less<double>>;
  Queue queue(distance, boost::make_iterator_property_map(heap_position.begin(), index), std::less<double>());
  auto visitor = boost::make_dijkstra_visitor(std::make_pair(
      boost::record_edge_predecessors(boost::make_iterator_property_map(pred.begin(), index), boost::on_edge_relaxed()),
      std::make_pair(RecordReached{&reached}, stop)));
  boost::detail::dijkstra_bfs_visitor<decltype(visitor), Queue, decltype(boost::get(&EdgeProps::weight, graph_)),
                                      boost::dummy_property_map, decltype(distance), std::plus<double>, std::less<double>>
      bfs_visitor(visitor, queue, boost::get(&EdgeProps::weight, graph_), boost::dummy_property_map(), distance,
                  std::plus<double>(), std::less<double>(), 0.0);
  try {
    boost::breadth_first_visit(graph_, &from, &from + 1, queue, bfs_visitor, boost::make_iterator_property_map(color.begin(), index));
  } catch (const SearchDone&) {
    // decided before the whole graph was searched
  }
  if (end == kUndecided) return std::nullopt;
  return trace(static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(end), [&](std::uint32_t v) {
    return std::pair{static_cast<std::uint32_t>(boost::source(pred[v], graph_)), graph_[pred[v]].link};
  });
}

namespace {

bool crosses_network(const GraphData& g, const std::vector<LinkId>& links) {
  return std::any_of(links.begin(), links.end(), [&](LinkId l) {
    return g.links[l.v].kind == LinkKind::Nic || g.links[l.v].kind == LinkKind::Network;
  });
}

}  // namespace

// Across nodes, the route NCCL's point-to-point transport takes (NCCL v2.26.2-1 src/graph/search.cc
// ncclTopoGetNetDev with no graph, NCCL_P2P_PXN_LEVEL=2 by default): the sender uses the NIC of its own
// node's GPU with the receiver's local index (PXN: over NVLink to that GPU, which owns the NIC), so traffic
// stays on the receiver's rail, also between leaves and pods; the receiver takes it in through its own
// NIC. Between the two NICs, FabricPaths' leaf-spine path. Nothing where a piece is missing (same node, no
// NIC, no NVLink to the relay, a fabric that is not leaf-spine): then Dijkstra decides, as inside a node.
// On one leaf this is the path Dijkstra finds (the rail's NIC is the only one two hops from the
// receiver's); between leaves Dijkstra found every NIC four hops away and kept the sender's own, crossing
// rails at the spine, through the one spine it met last. A route narrower than the NIC ports is left to
// the search too (see the end). Where the runtime keeps PXN off (relays_to_peer_nic_), the sender's own
// NIC sends: the same pieces with the sender as its own relay, also past a degraded cable.
std::optional<Route> RouteFinder::pxn_route(int src_rank, int dst_rank) const {
  const GpuInfo& src = data_.gpus[static_cast<std::size_t>(src_rank)];
  const GpuInfo& dst = data_.gpus[static_cast<std::size_t>(dst_rank)];
  if (src.node == dst.node || !dst.nearest_nic) return std::nullopt;
  const auto& node_ranks = rank_at_[static_cast<std::size_t>(src.node)];
  const auto local = static_cast<std::size_t>(dst.local_index);
  if (local >= node_ranks.size() || node_ranks[local] < 0) return std::nullopt;
  const GpuInfo& relay = data_.gpus[static_cast<std::size_t>(relays_to_peer_nic_ ? node_ranks[local] : src_rank)];
  if (!relay.nearest_nic) return std::nullopt;
  const std::optional<std::vector<LinkId>> across = fabric_.between(*relay.nearest_nic, *dst.nearest_nic);
  if (!across) return std::nullopt;

  std::vector<LinkId> links;
  if (relay.rank != src_rank) {
    std::optional<std::vector<LinkId>> to_relay = shortest_links(src.vertex.v, relay.vertex.v, data_.vertices.size() + static_cast<std::size_t>(relay.rank));
    if (!to_relay || crosses_network(data_, *to_relay)) return std::nullopt;
    const PathClass relay_class = classify(*to_relay);
    if (relay_class != PathClass::Nvl && relay_class != PathClass::Nvb) return std::nullopt;  // PXN needs NVLink
    links = std::move(*to_relay);
  }
  const std::optional<std::vector<LinkId>> out = shortest_links(relay.vertex.v, relay.nearest_nic->v, relay.nearest_nic->v);
  const std::optional<std::vector<LinkId>> in =
      shortest_links(dst.nearest_nic->v, dst.vertex.v, data_.vertices.size() + static_cast<std::size_t>(dst_rank));
  if (!out || !in || crosses_network(data_, *out) || crosses_network(data_, *in)) return std::nullopt;
  links.insert(links.end(), out->begin(), out->end());
  const std::size_t across_at = links.size();
  links.insert(links.end(), across->begin(), across->end());
  links.insert(links.end(), in->begin(), in->end());
  Route route = route_over(std::move(links));
  // Narrower than both nodes' NIC ports: a degraded cable is on it, and of paths of one class ccforge
  // takes the wider (the what-if rule). With PXN the search sees them all (a relay to a wider NIC too).
  // Without PXN (RCCL) no path class relays to another GPU's NIC, so both own NICs stay and only the
  // fabric between them may go round the slow cable (equal hops, the wider wins: link_weight).
  const double ports = std::min(fastest_nic_port_[static_cast<std::size_t>(src.node)], fastest_nic_port_[static_cast<std::size_t>(dst.node)]);
  if (route.bottleneck.bytes_per_s >= ports) return route;
  if (relays_to_peer_nic_) return std::nullopt;
  const std::optional<std::vector<LinkId>> detour = shortest_links(relay.nearest_nic->v, dst.nearest_nic->v, dst.nearest_nic->v);
  if (!detour) return route;
  std::vector<LinkId> rerouted(route.links.begin(), route.links.begin() + static_cast<std::ptrdiff_t>(across_at));
  rerouted.insert(rerouted.end(), detour->begin(), detour->end());
  rerouted.insert(rerouted.end(), in->begin(), in->end());
  Route detoured = route_over(std::move(rerouted));
  return detoured.bottleneck > route.bottleneck ? detoured : route;
}

template <class PredOf>
std::vector<LinkId> RouteFinder::trace(std::uint32_t from, std::uint32_t end, PredOf pred_of) const {
  std::vector<LinkId> links;
  for (std::uint32_t v = end; v != from;) {
    const auto [prev, link] = pred_of(v);
    links.push_back(LinkId{link});
    v = prev;
  }
  std::reverse(links.begin(), links.end());
  return links;
}

Route RouteFinder::route_over(std::vector<LinkId> links) const {
  Route route;
  route.bottleneck = Bandwidth{std::numeric_limits<double>::infinity()};
  for (LinkId id : links) {
    const Link& l = data_.links[id.v];
    route.latency += l.latency;
    route.bottleneck = std::min(route.bottleneck, l.bandwidth);
  }
  route.path_class = classify(links);
  route.links = std::move(links);
  return route;
}

// NCCL's path classes from what a path crosses: network, CPU interconnect, a CPU, PCIe switches, GPUs.
PathClass RouteFinder::classify(const std::vector<LinkId>& links) const {
  bool net = false, sys = false, cpu = false, pcie = false, gpu_relay = false;
  int pci_switches = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const Link& l = data_.links[links[i].v];
    net |= l.kind == LinkKind::Nic || l.kind == LinkKind::Network;
    sys |= l.kind == LinkKind::CpuInterconnect;
    pcie |= l.kind == LinkKind::Pcie;
    if (i + 1 == links.size()) break;  // the last vertex is the destination GPU
    const VertexKind through = data_.vertices[l.dst.v].kind;
    cpu |= through == VertexKind::Cpu;
    gpu_relay |= through == VertexKind::Gpu;
    pci_switches += through == VertexKind::PciSwitch;
  }
  if (net) return PathClass::Net;
  if (sys) return PathClass::Sys;
  if (cpu) return PathClass::Phb;
  if (pcie) return pci_switches <= 1 ? PathClass::Pix : PathClass::Pxb;
  return gpu_relay ? PathClass::Nvb : PathClass::Nvl;
}

}  // namespace ccforge::topo
