// What the end-to-end tune tests share: the bundled NDv5 topology, loaded once, and a fresh scratch
// folder per test and name.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {

inline const topo::Topology& bundled_ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

// An empty path under the temporary folder, unique to this test process.
inline std::filesystem::path fresh_tune_dir(const std::string& test, const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ccforge_" + test + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace ccforge::search
