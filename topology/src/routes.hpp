// Pass 4: GPU-to-GPU routes with Boost.Graph's Dijkstra, one source's shortest-path tree at a time.
#pragma once

#include "graph_data.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
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
  ~RouteFinder();

  RouteTree tree(int src_rank) const;
  // Route from the tree's source to GPU `dst_rank`. Unreachable: class DIS, no links.
  Route route(const RouteTree& tree, int dst_rank) const;
  // The same route without a whole tree: Dijkstra stops once the route is decided (much cheaper for a
  // route inside a node, about a tree's cost for one across the network). Safe from many threads.
  Route route_to(int src_rank, int dst_rank) const;

 private:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double,
                                                      boost::property<boost::edge_index_t, std::uint32_t>>>;
  void add_edge(std::size_t src, std::size_t dst, double weight, std::uint32_t link);
  template <class RoutedDst>
  void add_own_nic_paths(double widest, const RoutedDst& routed_dst);
  template <class Visitor>
  void search(std::size_t src, std::vector<double>& dist, std::vector<Graph::edge_descriptor>& pred, Visitor also) const;
  template <class PredOf>
  Route trace(int src_rank, std::uint32_t end, PredOf pred_of) const;
  PathClass classify(const std::vector<LinkId>& links) const;

  // A stopped search's distances, predecessors and colours, kept between searches so that a route
  // costs what it explores rather than the whole graph (at 16,384 GPUs most of a ring's routes stay in
  // one node of a graph of ~140 k vertices): between searches every distance is infinite and every
  // colour white, as Dijkstra's own initialisation leaves them; a search puts back the vertices it reached.
  struct Workspace;
  std::unique_ptr<Workspace> take_workspace() const;
  void give_back(std::unique_ptr<Workspace> w) const;

  const GraphData& data_;
  Graph graph_;
  mutable std::mutex workspaces_mutex_;
  mutable std::vector<std::unique_ptr<Workspace>> idle_workspaces_;  // one per thread searching at once
};

}  // namespace ccforge::topo
