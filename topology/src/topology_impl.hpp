// The data behind a Topology: frozen graph, link model and the routes asked for so far.
#pragma once

#include "graph_data.hpp"
#include "route_cache.hpp"
#include "routes.hpp"

#include <string>
#include <vector>

namespace ccforge::topo {

struct Topology::Impl {
  Impl(std::string name_, std::string source_file_, int num_nodes_, GraphData graph_, ParamTable params_, NetTransport transport_ = {});

  std::string name, source_file;
  int num_nodes = 1;
  int gpus_per_node = 0;
  GraphData graph;
  ParamTable params;
  NetTransport transport;
  RouteFinder finder;  // refers to `graph`, so Impl is neither copied nor moved
  RouteCache routes;   // refers to `finder`
};

}  // namespace ccforge::topo
