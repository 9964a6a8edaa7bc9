// Paths of the bundled topologies and test inputs, rooted at the source tree.
#pragma once

#include <filesystem>
#include <string>
#include "source_dir.hpp"

namespace ccforge::topo::testing {

inline std::filesystem::path source_path(const std::string& relative) {
  return std::filesystem::path(CCFORGE_SOURCE_DIR) / relative;
}
inline std::filesystem::path bundled(const std::string& name) { return source_path("data/topologies/" + name); }
inline std::filesystem::path azure(const std::string& name) { return source_path("tests/data/topologies/" + name); }

}  // namespace ccforge::topo::testing
