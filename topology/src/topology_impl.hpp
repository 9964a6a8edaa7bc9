// The data behind a Topology: frozen graph, link model, the routes asked for so far and what other
// parts derived from it.
#pragma once

#include "graph_data.hpp"
#include "route_cache.hpp"
#include "routes.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ccforge::topo {

struct Topology::Impl {
  Impl(std::string name_, std::string source_file_, int num_nodes_, GraphData graph_, ParamTable params_, NetTransport transport_ = {});

  std::string name, source_file;
  int num_nodes = 1;
  int gpus_per_node = 0;
  GraphData graph;
  ParamTable params;         // the link model by name (profiles, --dump-params, checkpoint fingerprints)
  LinkConstants constants;   // the same, bound once for the code that builds and reads links
  NetTransport transport;
  RouteFinder finder;  // refers to `graph`, so Impl is neither copied nor moved
  RouteCache routes;   // refers to `finder`
  mutable std::mutex derived_mutex;
  mutable std::map<const void*, std::shared_ptr<const void>> derived;  // Topology::derived
};

}  // namespace ccforge::topo
