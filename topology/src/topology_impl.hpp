// The data behind a Topology: frozen graph, link model and the lazily filled route rows.
#pragma once

#include "graph_data.hpp"
#include "routes.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ccforge::topo {

struct Topology::Impl {
  Impl(std::string name_, std::string source_file_, int num_nodes_, GraphData graph_, ParamTable params_);

  std::string name, source_file;
  int num_nodes = 1;
  int gpus_per_node = 0;
  GraphData graph;
  ParamTable params;
  RouteFinder finder;  // refers to `graph`, so Impl is neither copied nor moved
  // One row of routes per source rank, computed on first use; call_once makes concurrent first uses safe.
  mutable std::unique_ptr<std::once_flag[]> row_once;
  mutable std::vector<std::vector<Route>> rows;
};

}  // namespace ccforge::topo
