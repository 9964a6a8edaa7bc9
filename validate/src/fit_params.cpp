// Which parameters calibrate fits by default, and their physical bounds. Few on purpose: each one moves
// a different part of the size curve, so the NCCL baseline's time-vs-size data can identify them.
#include <string>

#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

std::vector<FitParam> default_fit_params(const topo::Topology& topology, const sim::SimParams& params) {
  std::vector<FitParam> known;
  auto fit_sim = [&](sim::Knob knob, double lo, double hi) {
    if (auto name = sim::knob_param(params, knob, topology.gpu(0).arch)) known.push_back({*name, lo, hi});
  };
  // Bounds: latencies from zero to a few times NCCL's table values (tuning.cc baseLat/hwLat), so a
  // fit cannot hide bandwidth error in latency; efficiencies between half and all of the line rate.
  fit_sim(sim::Knob::BaseLL, 0.0, 20.0);      // small sizes: LL ring launch + sync
  fit_sim(sim::Knob::BaseSimple, 0.0, 30.0);  // mid sizes on Simple
  if (topology.link_params().find("link.nvswitch.latency") != nullptr)
    known.push_back({"link.nvswitch.latency", 0.05, 3.0});  // per-step latency through NVSwitch
  fit_sim(sim::Knob::NvlsBase, 0.0, 60.0);          // NVLS whole-call latency
  fit_sim(sim::Knob::NvlinkEfficiency, 0.5, 1.0);   // ring bandwidth at large sizes
  fit_sim(sim::Knob::NvlsEfficiency, 0.5, 1.0);     // NVLS bandwidth at large sizes
  return known;
}

}  // namespace ccforge::validate
