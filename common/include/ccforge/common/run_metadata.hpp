// What every machine-readable output says about the run that wrote it: which format (schema) it is,
// which ccforge wrote it, the command line as given, and a content hash of each input file, so that a
// result can be traced to its inputs and two results compared only when their inputs match.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"

namespace ccforge {

// Schema of each output kind: bump the number when a member changes meaning or goes away (adding a
// member keeps it).
inline constexpr std::string_view kSimJsonSchema = "ccforge.sim/1";
inline constexpr std::string_view kSimExplainJsonSchema = "ccforge.sim.explain/1";
inline constexpr std::string_view kTuneReportSchema = "ccforge.tune.report/1";

// FNV-1a, 64 bits (offset basis and prime from the FNV reference, http://www.isthe.com/chongo/tech/comp/fnv/).
// Not cryptographic: it tells a changed input from an unchanged one, not a forged one from a real one.
inline std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

inline std::string fnv1a64_hex(std::uint64_t hash) {
  std::string hex(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) hex[static_cast<std::size_t>(i)] = "0123456789abcdef"[hash & 0xf];
  return hex;
}

struct InputHash {
  std::string file;     // as given on the command line
  std::string fnv1a64;  // 16 hex digits of the file's contents
};

struct RunMetadata {
  std::string schema;
  std::string ccforge_version;
  std::vector<std::string> command;  // argv as given, program name first
  std::vector<InputHash> inputs;
};

// Hashes each input (read through read_file, so a non-regular or oversized file is a DiagError).
inline RunMetadata make_run_metadata(std::string_view schema, std::string version, std::vector<std::string> command,
                                     const std::vector<std::filesystem::path>& inputs) {
  RunMetadata m{std::string(schema), std::move(version), std::move(command), {}};
  for (const std::filesystem::path& file : inputs)
    m.inputs.push_back(InputHash{file.string(), fnv1a64_hex(fnv1a64(read_file(file)))});
  return m;
}

inline nlohmann::json to_json(const RunMetadata& m) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputHash& in : m.inputs) inputs.push_back({{"file", in.file}, {"fnv1a64", in.fnv1a64}});
  return {{"schema", m.schema}, {"ccforge_version", m.ccforge_version}, {"command", m.command}, {"inputs", inputs}};
}

}  // namespace ccforge
