// Which parameters calibrate may fit, their physical bounds and where their defaults come from. Whether
// a given data set identifies each is decided by calibrate (identifiability.cpp), not here.
#include <string>

#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

std::vector<FitParam> default_fit_params(const topo::Topology& topology, const sim::SimParams& params) {
  std::vector<FitParam> known;
  auto fit_sim = [&](sim::Knob knob, double lo, double hi) {
    if (auto name = sim::knob_param(params, knob, topology.gpu(0).model->arch)) known.push_back({*name, lo, hi, Provenance::Cited});
  };
  // Bounds: latencies from zero to a few times NCCL's table values (tuning.cc baseLat/hwLat), so a
  // fit cannot hide bandwidth error in latency; efficiencies between half and all of the line rate.
  fit_sim(sim::Knob::BaseLL, 0.0, 20.0);      // small sizes: LL ring launch + sync
  fit_sim(sim::Knob::BaseSimple, 0.0, 30.0);  // mid sizes on Simple
  // Per-step latency through NVSwitch; its default was fitted to two 1 KB rows (topology/README.md).
  if (topology.link_params().find("link.nvswitch.latency") != nullptr)
    known.push_back({"link.nvswitch.latency", 0.05, 3.0, Provenance::Measured});
  fit_sim(sim::Knob::NvlsBase, 0.0, 60.0);          // NVLS whole-call latency
  fit_sim(sim::Knob::NvlinkEfficiency, 0.5, 1.0);   // ring bandwidth at large sizes
  fit_sim(sim::Knob::NvlsEfficiency, 0.5, 1.0);     // NVLS bandwidth at large sizes
  // Across nodes, the transport's per-message cost (sim/src/net/transports.cpp): zero to 200 us, past the
  // slowest software transport's small-message floor in the logs (TCPXO, ~125 us per call).
  if (topology.num_nodes() > 1) known.push_back({"sim.net.message_us", 0.0, 200.0, Provenance::Cited});
  return known;
}

}  // namespace ccforge::validate
