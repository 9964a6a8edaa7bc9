#include "costs.hpp"

#include "ccforge/sim/sim.hpp"
#include "net/transport_costs.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace ccforge::sim {

ProtocolCosts protocol_costs(const ParamTable& params, ir::Protocol proto, topo::GpuArch arch) {
  const std::string p = ir::to_string(proto);
  const std::string a = topo::param_key(arch);
  ProtocolCosts c;
  c.wire_efficiency = params.get("sim.proto." + p + ".wire_efficiency");
  c.tb_bytes_per_s = Bandwidth::GBps(params.get("sim.tb_bw." + p + "." + a)).bytes_per_s / c.wire_efficiency;
  if (const Param* gpu = params.find("sim.gpu_bw." + p + "." + a)) {
    c.gpu_bytes_per_s = Bandwidth::GBps(gpu->value).bytes_per_s / c.wire_efficiency;
  }
  c.sync_nvlink = SimTime::from_us(params.get("sim.sync." + p + ".nvlink_us"));
  c.sync_pcie = SimTime::from_us(params.get("sim.sync." + p + ".pcie_us"));
  c.sync_net = SimTime::from_us(params.get("sim.sync." + p + ".net_us"));
  c.base = SimTime::from_us(params.get("sim.base." + p + "_us"));
  c.net_proxy = SimTime::from_us(params.get("sim.net.proxy_us"));
  return c;
}

ProtocolCosts protocol_costs(const ParamTable& params, ir::Protocol proto, const topo::Topology& topo) {
  ProtocolCosts c = protocol_costs(params, proto, topo.gpu(0).arch);
  c.net_message = net::message_cost(topo, params);
  return c;
}

ir::Runtime msccl_runtime(const topo::Topology& topo) {
  const std::optional<topo::GpuSpec> spec = topo::gpu_spec(topo.gpu(0).model);
  return ir::runtime_for_vendor(spec ? spec->amd : topo.gpu(0).arch == topo::GpuArch::Cdna3);
}

MscclRuntimeCosts msccl_runtime_costs(const ParamTable& params, ir::Runtime runtime) {
  const std::string base = runtime == ir::Runtime::Rccl ? "sim.rccl.msccl.base_us" : "sim.msccl.base_us";
  return {SimTime::from_us(params.get(base)), SimTime::from_us(params.get("sim.msccl.dep_us")),
          SimTime::from_us(params.get("sim.msccl.line_forward_us"))};
}

ProtocolCosts msccl_protocol_costs(const ParamTable& params, ir::Protocol proto, const topo::Topology& topo, ir::Runtime runtime) {
  const topo::GpuArch arch = topo.gpu(0).arch;
  ProtocolCosts c = protocol_costs(params, proto, topo);
  const std::string p = ir::to_string(proto);
  const std::string a = topo::param_key(arch);
  if (runtime == ir::Runtime::Rccl) {
    const double tb_payload = c.tb_bytes_per_s * c.wire_efficiency;
    const double gpu_payload = c.gpu_bytes_per_s * c.wire_efficiency;  // 0: no cap
    if (const Param* line = params.find("sim.rccl.proto." + p + ".wire_efficiency")) c.wire_efficiency = line->value;
    if (const Param* rate = params.find("sim.rccl.msccl.tb_bw." + p + "." + a))
      c.tb_bytes_per_s = Bandwidth::GBps(rate->value).bytes_per_s / c.wire_efficiency;
    else
      c.tb_bytes_per_s = tb_payload / c.wire_efficiency;
    c.gpu_bytes_per_s = gpu_payload / c.wire_efficiency;
    return c;
  }
  if (proto != ir::Protocol::LL128) return c;
  if (const Param* rate = params.find("sim.msccl.tb_bw.LL128." + a))
    c.tb_bytes_per_s = std::min(c.tb_bytes_per_s, Bandwidth::GBps(rate->value).bytes_per_s);
  return c;
}

bool forwards_per_line(ir::Protocol proto) { return proto != ir::Protocol::Simple; }

SimTime sync_cost(const ProtocolCosts& costs, topo::PathClass cls) {
  switch (cls) {
    case topo::PathClass::Loc:
    case topo::PathClass::Nvl:
    case topo::PathClass::Nvb:
    case topo::PathClass::C2c: return costs.sync_nvlink;
    case topo::PathClass::Net: return costs.sync_net;
    default: return costs.sync_pcie;
  }
}

SimTime transfer_alpha(const ProtocolCosts& costs, const topo::Route& route, bool with_sync) {
  SimTime delay = route.latency;
  if (with_sync) delay += sync_cost(costs, route.path_class);
  if (route.path_class == topo::PathClass::Net) delay += costs.net_proxy + costs.net_message;
  return delay;
}

Bandwidth hbm_bandwidth(const ParamTable& params, topo::GpuArch arch) {
  return Bandwidth::GBps(params.get(std::string("sim.hbm_bw.") + topo::param_key(arch)));
}

SimTime local_reduce_time(const ParamTable& params, topo::GpuArch arch, double bytes) {
  return local_reduce_time(hbm_bandwidth(params, arch), bytes);
}

SimTime local_copy_time(const ParamTable& params, topo::GpuArch arch, double bytes) {
  return local_copy_time(hbm_bandwidth(params, arch), bytes);
}

std::vector<double> link_capacities(const topo::Topology& topo, const ParamTable& params) {
  std::vector<double> capacity;
  capacity.reserve(topo.links().size());
  const double framing = net::framing_share(topo);
  for (const topo::Link& l : topo.links()) {
    const bool network = l.kind == topo::LinkKind::Nic || l.kind == topo::LinkKind::Network;
    capacity.push_back(l.bandwidth.bytes_per_s * link_efficiency(params, l.kind, topo.gpu(0).arch) * (network ? framing : 1.0));
  }
  return capacity;
}

double link_efficiency(const ParamTable& params, topo::LinkKind kind, topo::GpuArch arch) {
  switch (kind) {
    case topo::LinkKind::NvLink:
    case topo::LinkKind::NvSwitch:
    case topo::LinkKind::Xgmi: return params.get(std::string("sim.link.nvlink.efficiency.") + topo::param_key(arch));
    case topo::LinkKind::Nic:
    case topo::LinkKind::Network: return params.get("sim.link.net.efficiency");
    default: return 1.0;
  }
}

SimTime benchmark_iteration_time(SimTime device, const SimParams& params) {
  const SimTime host = SimTime::from_us(params.table.get("sim.launch.host_per_gpu_us") * params.launch.gpus_per_thread);
  return std::max(device, host);
}

}  // namespace ccforge::sim
