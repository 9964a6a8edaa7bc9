// The typed facts of the model for other parts (sim.hpp Model, Knob): read from the parameter table
// here, so that parameter names stay inside sim.
#include <algorithm>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"

namespace ccforge::sim {

Model build_model(const topo::Topology& topo, const SimParams& params) {
  const ParamTable& table = params.table;
  const topo::GpuArch arch = topo.gpu(0).arch;
  Model m;
  m.link_capacity = link_capacities(topo, table);
  m.nic_efficiency = link_efficiency(table, topo::LinkKind::Network, arch);
  double base_us = msccl_runtime_costs(table, msccl_runtime(topo)).base.us();
  for (ir::Protocol proto : {ir::Protocol::LL, ir::Protocol::LL128, ir::Protocol::Simple})
    base_us = std::min(base_us, table.get(std::string("sim.base.") + ir::to_string(proto) + "_us"));
  m.min_call_base = SimTime::from_us(base_us);
  m.nvls_base = SimTime::from_us(table.get("sim.nvls.base_us"));
  // NVLS runs on an NVSwitch whose GPUs have an NVLS efficiency (NCCL's nvlsEfficiency: Hopper on).
  if (const Param* e = table.find(std::string("sim.nvls.efficiency.") + topo::param_key(arch)); e && topo.has_nvswitch())
    m.nvls_efficiency = e->value;
  return m;
}

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
  if (params.table.find(name) == nullptr) return std::nullopt;
  return name;
}

}  // namespace ccforge::sim
