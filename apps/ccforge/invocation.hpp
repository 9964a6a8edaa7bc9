// The command line as given, kept by main() for the metadata of machine-readable outputs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/run_metadata.hpp"

namespace ccforge::cli {

inline std::vector<std::string>& invocation() {
  static std::vector<std::string> argv;
  return argv;
}

inline void record_invocation(int argc, char** argv) { invocation().assign(argv, argv + argc); }

// Metadata of an output of kind `schema` written from `inputs` by this ccforge.
inline RunMetadata run_metadata(std::string_view schema, const std::vector<std::filesystem::path>& inputs) {
  return make_run_metadata(schema, CCFORGE_VERSION, invocation(), inputs);
}

}  // namespace ccforge::cli
