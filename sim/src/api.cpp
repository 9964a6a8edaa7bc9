// Small public helpers: profiles and nccl-tests bandwidth formulas.
#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {

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
