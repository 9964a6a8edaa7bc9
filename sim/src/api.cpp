// Small public helpers: profiles and nccl-tests bandwidth formulas.
#include <fmt/core.h>

#include <optional>
#include <string>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

// Why a value means nothing to the model (a share above 1, a negative latency, no rate), by its unit.
std::optional<std::string> out_of_range(const Param& p) {
  if (p.unit == "ratio" && !(p.value > 0.0 && p.value <= 1.0)) return "a ratio lies in (0, 1]";
  if (p.unit == "GB/s" && !(p.value > 0.0)) return "a rate is above 0";
  if (p.unit == "us" && !(p.value >= 0.0)) return "a latency is at least 0";
  if (p.unit == "channels" && !(p.value >= 1.0)) return "at least 1 channel";
  return std::nullopt;
}

}  // namespace

topo::LoadOptions apply_profile(const std::filesystem::path& profile_path, SimParams& params) {
  const std::vector<topo::ProfileEntry> entries = topo::read_profile(profile_path);
  for (const topo::ProfileEntry& e : entries) {
    if (!e.name.starts_with("link.") && !e.name.starts_with("sim."))
      fail_at(e.loc.file, e.loc.line, "unknown parameter " + e.name, "profile names start with link. or sim.");
  }
  topo::apply_profile(params.table, entries, "sim.");
  for (const topo::ProfileEntry& e : entries) {
    const Param* p = e.name.starts_with("sim.") ? params.table.find(e.name) : nullptr;
    if (p == nullptr) continue;
    if (const std::optional<std::string> fix = out_of_range(*p))
      fail_at(e.loc.file, e.loc.line, fmt::format("{} = {} is out of range", e.name, e.value), *fix);
  }
  topo::LoadOptions options;
  options.profile = entries;
  return options;
}

double algbw_gbs(ByteCount bytes, SimTime time) {
  return time.ps > 0 ? static_cast<double>(bytes) / time.seconds() * 1e-9 : 0.0;
}

}  // namespace ccforge::sim
