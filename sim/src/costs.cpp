#include "costs.hpp"

#include "ccforge/sim/sim.hpp"
#include "net/transport_costs.hpp"

#include <algorithm>
#include <optional>

namespace ccforge::sim {

ProtocolCosts protocol_costs(const SimConstants& params, ir::Protocol proto, topo::GpuArch arch) {
  const ProtocolConstants& p = params.of(proto);
  const ArchConstants& a = params.of(arch);
  ProtocolCosts c;
  c.wire_efficiency = p.wire_efficiency;
  c.tb_bytes_per_s = Bandwidth::GBps(a.tb_bw_gbs[index_of(proto)]).bytes_per_s / c.wire_efficiency;
  if (const std::optional<double> gpu = a.gpu_bw_gbs[index_of(proto)]) {
    c.gpu_bytes_per_s = Bandwidth::GBps(*gpu).bytes_per_s / c.wire_efficiency;
  }
  c.sync_nvlink = SimTime::from_us(p.sync_nvlink_us);
  c.sync_pcie = SimTime::from_us(p.sync_pcie_us);
  c.sync_net = SimTime::from_us(p.sync_net_us);
  c.base = SimTime::from_us(p.base_us);
  c.net_proxy = SimTime::from_us(params.net_proxy_us);
  return c;
}

ProtocolCosts protocol_costs(const SimConstants& params, ir::Protocol proto, const topo::Topology& topo) {
  ProtocolCosts c = protocol_costs(params, proto, topo.gpu(0).model->arch);
  c.net_message = net::message_cost(topo, params);
  return c;
}

ir::Runtime msccl_runtime(const topo::Topology& topo) {
  return ir::runtime_for_vendor(topo.gpu(0).model->amd());
}

MscclRuntimeCosts msccl_runtime_costs(const SimConstants& params, ir::Runtime runtime) {
  const double base_us = runtime == ir::Runtime::Rccl ? params.rccl.base_us : params.msccl.base_us;
  return {SimTime::from_us(base_us), SimTime::from_us(params.msccl.dep_us), SimTime::from_us(params.msccl.line_forward_us)};
}

ProtocolCosts msccl_protocol_costs(const SimConstants& params, ir::Protocol proto, const topo::Topology& topo, ir::Runtime runtime) {
  const topo::GpuArch arch = topo.gpu(0).model->arch;
  ProtocolCosts c = protocol_costs(params, proto, topo);
  const ArchConstants& a = params.of(arch);
  if (runtime == ir::Runtime::Rccl) {
    const double tb_payload = c.tb_bytes_per_s * c.wire_efficiency;
    const double gpu_payload = c.gpu_bytes_per_s * c.wire_efficiency;  // 0: no cap
    if (const std::optional<double> line = params.rccl.wire_efficiency[index_of(proto)]) c.wire_efficiency = *line;
    if (const std::optional<double> rate = a.rccl_msccl_tb_bw_gbs[index_of(proto)])
      c.tb_bytes_per_s = Bandwidth::GBps(*rate).bytes_per_s / c.wire_efficiency;
    else
      c.tb_bytes_per_s = tb_payload / c.wire_efficiency;
    c.gpu_bytes_per_s = gpu_payload / c.wire_efficiency;
    return c;
  }
  if (proto != ir::Protocol::LL128) return c;
  if (a.msccl_ll128_tb_bw_gbs)
    c.tb_bytes_per_s = std::min(c.tb_bytes_per_s, Bandwidth::GBps(*a.msccl_ll128_tb_bw_gbs).bytes_per_s);
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

Bandwidth hbm_bandwidth(const SimConstants& params, topo::GpuArch arch) { return Bandwidth::GBps(params.of(arch).hbm_gbs); }

SimTime local_reduce_time(const SimConstants& params, topo::GpuArch arch, double bytes) {
  return local_reduce_time(hbm_bandwidth(params, arch), bytes);
}

SimTime local_copy_time(const SimConstants& params, topo::GpuArch arch, double bytes) {
  return local_copy_time(hbm_bandwidth(params, arch), bytes);
}

std::vector<double> link_capacities(const topo::Topology& topo, const SimConstants& params) {
  std::vector<double> capacity;
  capacity.reserve(topo.links().size());
  const double framing = net::framing_share(topo);
  for (const topo::Link& l : topo.links()) {
    const bool network = l.kind == topo::LinkKind::Nic || l.kind == topo::LinkKind::Network;
    capacity.push_back(l.bandwidth.bytes_per_s * link_efficiency(params, l.kind, topo.gpu(0).model->arch) * (network ? framing : 1.0));
  }
  return capacity;
}

double alltoall_nvlink_cap(const SimConstants& params, const topo::Topology& topo) {
  const topo::GpuInfo& gpu = topo.gpu(0);
  const std::optional<double> share = params.of(gpu.model->arch).p2p_nvlink_share;
  if (!share) return 0.0;
  return *share * gpu.nvlink_bandwidth.bytes_per_s * link_efficiency(params, topo::LinkKind::NvLink, gpu.model->arch);
}

double link_efficiency(const SimConstants& params, topo::LinkKind kind, topo::GpuArch arch) {
  switch (kind) {
    case topo::LinkKind::NvLink:
    case topo::LinkKind::NvSwitch:
    case topo::LinkKind::Xgmi: return params.of(arch).nvlink_efficiency;
    case topo::LinkKind::Nic:
    case topo::LinkKind::Network: return params.net_efficiency;
    default: return 1.0;
  }
}

SimTime benchmark_iteration_time(SimTime device, const SimParams& params) {
  const SimTime host = SimTime::from_us(params.constants.launch_host_per_gpu_us * params.launch.gpus_per_thread);
  return std::max(device, host);
}

}  // namespace ccforge::sim
