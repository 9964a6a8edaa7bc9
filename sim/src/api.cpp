// Small public helpers: element types and nccl-tests bandwidth formulas.
#include <array>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

// nccl-tests' -d names (src/common.cu test_typenames) and their sizes.
const std::array<DataType, 10> kDataTypes = {{{"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8},
                                              {"uint64", 8}, {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}}};

}  // namespace

std::optional<DataType> data_type_from_string(std::string_view name) {
  for (const DataType& t : kDataTypes) {
    if (t.name == name) return t;
  }
  return std::nullopt;
}

std::string data_type_names() {
  std::string out;
  for (const DataType& t : kDataTypes) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

topo::LoadOptions apply_profile(const std::filesystem::path& profile_path, SimParams& params) {
  const std::vector<topo::ProfileEntry> entries = topo::read_profile(profile_path);
  for (const topo::ProfileEntry& e : entries) {
    if (!e.name.starts_with("link.") && !e.name.starts_with("sim."))
      fail_at(e.loc.file, e.loc.line, "unknown parameter " + e.name, "profile names start with link. or sim.");
  }
  topo::apply_profile(params.table, entries, "sim.");
  topo::LoadOptions options;
  options.profile = entries;
  return options;
}

double algbw_gbs(ByteCount bytes, SimTime time) {
  return time.ps > 0 ? static_cast<double>(bytes) / time.seconds() * 1e-9 : 0.0;
}

}  // namespace ccforge::sim
