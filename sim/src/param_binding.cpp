// The named boundary of the simulator's constants: profiles and calibrate set them by name, and
// --dump-params and the checkpoint fingerprint list them, through the declarations of params.cpp.
#include <fmt/core.h>

#include <cmath>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "param_decls.hpp"

namespace ccforge::sim {

double nccl_version_number(NcclVersion version) {
  return std::stod(fmt::format("{}.{:02d}", version.major, version.minor));
}

NcclVersion nccl_version_of(double number) {
  const long hundredths = std::lround(number * 100.0);
  return {static_cast<int>(hundredths / 100), static_cast<int>(hundredths % 100)};
}

ParamTable param_table(const SimParams& params) {
  ParamTable table;
  for (const ParamDecl& d : sim_param_decls()) {
    const auto set_by = params.param_sources.find(d.name);
    table.add({d.name, d.get(params.constants), d.unit, set_by == params.param_sources.end() ? d.source : set_by->second});
  }
  return table;
}

ParamTable default_sim_params() { return param_table(SimParams{}); }

bool set_param(SimParams& params, std::string_view name, double value, std::string source) {
  const ParamDecl* d = find_sim_param(name);
  if (d == nullptr) return false;
  d->set(params.constants, value);
  params.param_sources[d->name] = std::move(source);
  return true;
}

std::optional<double> param_value(const SimParams& params, std::string_view name) {
  const ParamDecl* d = find_sim_param(name);
  if (d == nullptr) return std::nullopt;
  return d->get(params.constants);
}

topo::LoadOptions apply_profile(const std::filesystem::path& profile_path, SimParams& params) {
  const std::vector<topo::ProfileEntry> entries = topo::read_profile(profile_path);
  for (const topo::ProfileEntry& e : entries) {
    if (!e.name.starts_with("link.") && !e.name.starts_with("sim."))
      fail_at(e.loc.file, e.loc.line, "unknown parameter " + e.name, "profile names start with link. or sim.");
  }
  for (const topo::ProfileEntry& e : entries) {
    if (!e.name.starts_with("sim.")) continue;
    const ParamDecl* d = find_sim_param(e.name);
    if (d == nullptr)
      throw DiagError(Diag{e.loc, fmt::format("unknown parameter name \"{}\"", e.name),
                           "see the parameter tables in topology/README.md and sim/README.md"});
    d->set(params.constants, e.value);
    params.param_sources[d->name] = fmt::format("profile {}:{}", e.loc.file, e.loc.line);
  }
  for (const topo::ProfileEntry& e : entries) {
    const ParamDecl* d = e.name.starts_with("sim.") ? find_sim_param(e.name) : nullptr;
    if (d == nullptr) continue;
    if (const std::optional<std::string_view> rule = d->range(e.value))
      fail_at(e.loc.file, e.loc.line, fmt::format("{} = {} is out of range", e.name, e.value), std::string(*rule));
  }
  topo::LoadOptions options;
  options.profile = entries;
  return options;
}

}  // namespace ccforge::sim
