// Pass 4: GPU-to-GPU routes with Boost.Graph's Dijkstra, one source's shortest-path tree at a time.
#pragma once

#include "fabric_paths.hpp"
#include "graph_data.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ccforge::topo {

// Dijkstra's shortest-path tree from one source GPU, kept compact (8 bytes per routing vertex, 4 per GPU):
// enough to trace the source's route to any GPU.
struct RouteTree {
  static constexpr std::uint32_t kNone = 0xffffffffu;
  int src_rank = 0;
  std::vector<std::uint32_t> pred_vertex, pred_link;  // per routing vertex: the edge it was last relaxed by
  std::vector<std::uint32_t> end;                     // per destination rank: vertex its route ends at, or kNone
};

class RouteFinder {
 public:
  explicit RouteFinder(const GraphData& graph);

  RouteTree tree(int src_rank) const;
  // Route from the tree's source to GPU `dst_rank`. Unreachable: class DIS, no links.
  Route route(const RouteTree& tree, int dst_rank) const;
  // The same route without a whole tree: Dijkstra stops once the route is decided (microseconds inside a
  // node, about a tree's cost for one across the network).
  Route route_to(int src_rank, int dst_rank) const;
  // Across nodes, the runtime's point-to-point route (NCCL's PXN relay; RCCL's sender's own NIC) put
  // together from its pieces without a search over the network; nothing where the topology has no such
  // route (same node, no NIC, no NVLink relay, no leaf-spine fabric, a degraded cable on it): then
  // route_to or a tree decides.
  std::optional<Route> pxn_route(int src_rank, int dst_rank) const;

 private:
  // Built as an adjacency list, searched as a compressed sparse row graph with the same vertex numbers
  // and each vertex's out-edges in the same order, so Dijkstra runs the same (ties included) on edges
  // stored side by side instead of each behind a pointer (a 16,384-GPU route stalled on those loads).
  using Builder = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                        boost::property<boost::edge_weight_t, double,
                                                        boost::property<boost::edge_index_t, std::uint32_t>>>;
  struct EdgeProps {
    double weight = 0.0;
    std::uint32_t link = 0;  // topology link id
  };
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeProps>;
  void add_edge(std::size_t src, std::size_t dst, double weight, std::uint32_t link);
  template <class RoutedDst>
  void add_own_nic_paths(double widest, const RoutedDst& routed_dst);
  void freeze();
  template <class Visitor>
  void search(std::size_t src, std::vector<double>& dist, std::vector<Graph::edge_descriptor>& pred, Visitor also) const;
  // Links of the shortest path from `from` to `direct` or `arrival` (whichever Dijkstra decides first), by a
  // search that stops there; nothing when neither is reachable.
  std::optional<std::vector<LinkId>> shortest_links(std::size_t from, std::size_t direct, std::size_t arrival) const;
  template <class PredOf>
  std::vector<LinkId> trace(std::uint32_t from, std::uint32_t end, PredOf pred_of) const;
  Route route_over(std::vector<LinkId> links) const;
  PathClass classify(const std::vector<LinkId>& links) const;

  const GraphData& data_;
  // Until the constructor ends; held by pointer so that freeing it is not an adjacency_list copy.
  std::unique_ptr<Builder> builder_;
  Graph graph_;
  FabricPaths fabric_;
  std::vector<std::vector<int>> rank_at_;  // [node][local index] -> rank; -1 where a node has fewer GPUs
  std::vector<double> fastest_nic_port_;   // per node: its widest NIC-to-switch cable, bytes/s
  bool relays_to_peer_nic_ = true;         // PXN: sending through the receiver's rail GPU's NIC
};

}  // namespace ccforge::topo
