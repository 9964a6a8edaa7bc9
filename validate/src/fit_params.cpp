// Which parameters calibrate fits by default, and their physical bounds. Few on purpose: each one moves
// a different part of the size curve, so the NCCL baseline's time-vs-size data can identify them.
#include <string>

#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

std::vector<FitParam> default_fit_params(const topo::Topology& topology, const sim::SimParams& params) {
  const std::string arch = topo::param_key(topology.gpu(0).arch);
  // Bounds: latencies from zero to a few times NCCL's table values (tuning.cc baseLat/hwLat), so a
  // fit cannot hide bandwidth error in latency; efficiencies between half and all of the line rate.
  const std::vector<FitParam> candidates = {
      {"sim.base.LL_us", 0.0, 20.0},                    // small sizes: LL ring launch + sync
      {"sim.base.Simple_us", 0.0, 30.0},                // mid sizes on Simple
      {"link.nvswitch.latency", 0.05, 3.0},             // per-step latency through NVSwitch
      {"sim.nvls.base_us", 0.0, 60.0},                  // NVLS whole-call latency
      {"sim.link.nvlink.efficiency." + arch, 0.5, 1.0}, // ring bandwidth at large sizes
      {"sim.nvls.efficiency." + arch, 0.5, 1.0},        // NVLS bandwidth at large sizes
  };
  std::vector<FitParam> known;
  for (const FitParam& p : candidates) {
    const bool present = p.name.starts_with("link.") ? topology.link_params().find(p.name) != nullptr : params.table.find(p.name) != nullptr;
    if (present) known.push_back(p);
  }
  return known;
}

}  // namespace ccforge::validate
