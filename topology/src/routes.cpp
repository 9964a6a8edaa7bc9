#include "routes.hpp"

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ccforge::topo {
namespace {

// Link weights encode NCCL's preference (graph.h path classes, paths.cc ncclTopoSetPaths): any path that
// avoids a worse kind of link beats every path that uses one, so each level costs kLevelBase times the one
// below (paths have far fewer than kLevelBase hops). Within a level fewer hops win, as in NCCL's
// breadth-first search, which never replaces a path by a longer one; then wider links win: the bandwidth
// term adds less than kBandwidthTieBreak of a hop.
constexpr double kLevelBase = 1000.0;
constexpr double kBandwidthTieBreak = 0.01;

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

}  // namespace

// Routing graph: the topology's vertices, plus one "arrival" vertex per GPU. PCIe links into a GPU end
// at its arrival vertex, which has no way out, so routes never relay through a GPU's PCIe port; NVLink
// relays (NCCL's NVB and PXN paths) enter the GPU vertex itself.
RouteFinder::RouteFinder(const GraphData& graph) : data_(graph), graph_(graph.vertices.size() + graph.gpus.size()) {
  std::vector<std::size_t> arrival(graph.vertices.size(), std::numeric_limits<std::size_t>::max());
  for (std::size_t r = 0; r < graph.gpus.size(); ++r) arrival[graph.gpus[r].vertex.v] = graph.vertices.size() + r;
  double widest = 1.0;
  for (const Link& l : graph.links) widest = std::max(widest, l.bandwidth.bytes_per_s);
  for (std::uint32_t i = 0; i < graph.links.size(); ++i) {
    const Link& l = graph.links[i];
    const bool into_gpu_by_pcie = l.kind == LinkKind::Pcie && graph.vertices[l.dst.v].kind == VertexKind::Gpu;
    const std::size_t dst = into_gpu_by_pcie ? arrival[l.dst.v] : l.dst.v;
    const double narrowness = 1.0 - l.bandwidth.bytes_per_s / widest;  // 0 for the widest link, < 1 always
    const double weight = std::pow(kLevelBase, level(l.kind)) * (1.0 + kBandwidthTieBreak * narrowness);
    boost::add_edge(l.src.v, dst, Graph::edge_property_type(weight, Graph::edge_property_type::next_type(i)), graph_);
  }
}

std::vector<Route> RouteFinder::row(int src_rank) const {
  const std::size_t n = boost::num_vertices(graph_);
  const std::size_t src = data_.gpus[static_cast<std::size_t>(src_rank)].vertex.v;
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  std::vector<Graph::edge_descriptor> pred(n);
  const auto index = boost::get(boost::vertex_index, graph_);
  boost::dijkstra_shortest_paths(
      graph_, src,
      boost::distance_map(boost::make_iterator_property_map(dist.begin(), index))
          .distance_inf(std::numeric_limits<double>::infinity())
          .visitor(boost::make_dijkstra_visitor(boost::record_edge_predecessors(
              boost::make_iterator_property_map(pred.begin(), index), boost::on_edge_relaxed()))));

  std::vector<Route> routes(data_.gpus.size());
  for (std::size_t dst = 0; dst < data_.gpus.size(); ++dst) {
    Route& route = routes[dst];
    if (static_cast<int>(dst) == src_rank) {
      route.path_class = PathClass::Loc;
      route.bottleneck = Bandwidth{std::numeric_limits<double>::infinity()};
      continue;
    }
    const std::size_t direct = data_.gpus[dst].vertex.v;
    const std::size_t arrival = data_.vertices.size() + dst;
    const std::size_t end = dist[arrival] < dist[direct] ? arrival : direct;
    if (std::isinf(dist[end])) continue;  // stays DIS with no links
    route = trace(src, end, pred);
  }
  return routes;
}

Route RouteFinder::trace(std::size_t src_vertex, std::size_t end, const std::vector<Graph::edge_descriptor>& pred) const {
  Route route;
  route.bottleneck = Bandwidth{std::numeric_limits<double>::infinity()};
  const auto edge_index = boost::get(boost::edge_index, graph_);
  for (std::size_t v = end; v != src_vertex; v = boost::source(pred[v], graph_)) {
    const LinkId id{edge_index[pred[v]]};
    route.links.push_back(id);
    const Link& l = data_.links[id.v];
    route.latency += l.latency;
    route.bottleneck = std::min(route.bottleneck, l.bandwidth);
  }
  std::reverse(route.links.begin(), route.links.end());
  route.path_class = classify(route.links);
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
