// Shipped topologies (data/topologies/NAME) loaded once per test binary.
#pragma once

#include <map>
#include <string>

#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {

inline const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name)).first;
  return it->second;
}

}  // namespace ccforge::sim
