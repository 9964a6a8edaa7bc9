// Pass 4: GPU-to-GPU routes with Boost.Graph's Dijkstra, one source row at a time.
#pragma once

#include "graph_data.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <vector>

namespace ccforge::topo {

class RouteFinder {
 public:
  explicit RouteFinder(const GraphData& graph);

  // Routes from GPU `src_rank` to every GPU, indexed by destination rank. Unreachable: class DIS, no links.
  std::vector<Route> row(int src_rank) const;

 private:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double,
                                                      boost::property<boost::edge_index_t, std::uint32_t>>>;
  void add_edge(std::size_t src, std::size_t dst, double weight, std::uint32_t link);
  template <class RoutedDst>
  void add_own_nic_paths(double widest, const RoutedDst& routed_dst);
  Route trace(std::size_t src_vertex, std::size_t end, const std::vector<Graph::edge_descriptor>& pred) const;
  PathClass classify(const std::vector<LinkId>& links) const;

  const GraphData& data_;
  Graph graph_;
};

}  // namespace ccforge::topo
