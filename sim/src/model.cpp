// The typed facts of the model for other parts (sim.hpp Model, Knob), so that parameter names stay
// inside sim.
#include <algorithm>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"

namespace ccforge::sim {

Model build_model(const topo::Topology& topo, const SimParams& params) {
  const SimConstants& constants = params.constants;
  const topo::GpuArch arch = topo.gpu(0).model->arch;
  Model m;
  m.link_capacity = link_capacities(topo, constants);
  m.nic_efficiency = link_efficiency(constants, topo::LinkKind::Network, arch);
  double base_us = msccl_runtime_costs(constants, msccl_runtime(topo)).base.us();
  for (ir::Protocol proto : {ir::Protocol::LL, ir::Protocol::LL128, ir::Protocol::Simple})
    base_us = std::min(base_us, constants.of(proto).base_us);
  m.min_call_base = SimTime::from_us(base_us);
  m.nvls_base = SimTime::from_us(constants.nvls_base_us);
  // NVLS runs on an NVSwitch whose GPUs have an NVLS efficiency (NCCL's nvlsEfficiency: Hopper on).
  if (const std::optional<double> e = constants.of(arch).nvls_efficiency; e && topo.has_nvswitch()) m.nvls_efficiency = *e;
  return m;
}

// The profile name of a knob is the one place outside the declarations that names a parameter: it is
// what calibrate fits and writes into a profile.
std::optional<std::string> knob_param(const SimParams& params, Knob knob, topo::GpuArch arch) {
  const std::string a = topo::param_key(arch);
  std::string name;
  switch (knob) {
    case Knob::BaseLL: name = "sim.base.LL_us"; break;
    case Knob::BaseSimple: name = "sim.base.Simple_us"; break;
    case Knob::NvlsBase: name = "sim.nvls.base_us"; break;
    case Knob::NvlinkEfficiency: name = "sim.link.nvlink.efficiency." + a; break;
    case Knob::NvlsEfficiency: name = "sim.nvls.efficiency." + a; break;
  }
  if (!param_value(params, name)) return std::nullopt;
  return name;
}

}  // namespace ccforge::sim
