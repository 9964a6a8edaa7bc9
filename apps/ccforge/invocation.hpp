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

// The input files a run read, for its metadata: the topology, the profile and an MSCCL algorithm file
// (the last two where given, i.e. non-empty).
inline std::vector<std::filesystem::path> input_files(const std::string& topology, const std::string& profile,
                                                      const std::string& algorithm_file = "") {
  std::vector<std::filesystem::path> files{topology};
  if (!profile.empty()) files.emplace_back(profile);
  if (!algorithm_file.empty()) files.emplace_back(algorithm_file);
  return files;
}

// Metadata of an output of kind `schema` written from `inputs` by this ccforge.
inline RunMetadata run_metadata(std::string_view schema, const std::vector<std::filesystem::path>& inputs) {
  return make_run_metadata(schema, CCFORGE_VERSION, invocation(), inputs);
}

}  // namespace ccforge::cli
