// The link model, declared once: each constant's profile name, unit, range, default, source and the
// LinkConstants field it binds to. Physical (datasheet/spec) values build the graph; NCCL's own per-link
// model values belong to NCCL's tuning model (sim/src/nccl/tuning_tables.hpp), not to the topology.
#include "link_params.hpp"

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <string_view>

namespace ccforge::topo {
namespace {

// What a value must satisfy to mean something to the model; nullopt when it does, else the rule.
using RangeCheck = std::optional<std::string_view> (*)(double value);
// A link rate of 0 carries nothing: every route over it would stall and the error would blame the
// topology, not the profile line.
std::optional<std::string_view> rate(double v) {
  return v > 0.0 ? std::nullopt : std::optional<std::string_view>("a rate is above 0");
}
std::optional<std::string_view> latency(double v) {
  return v >= 0.0 ? std::nullopt : std::optional<std::string_view>("a latency is at least 0");
}

struct LinkParamDecl {
  Param param;  // name, default, unit, source
  RangeCheck range;
  std::function<double&(LinkConstants&)> field;
};

LinkParamDecl gbs(const char* name, double value, const char* source, std::function<double&(LinkConstants&)> field) {
  return {{name, value, "GB/s", source}, rate, std::move(field)};
}
LinkParamDecl us(const char* name, double value, const char* source, double LinkConstants::*member) {
  return {{name, value, "us", source}, latency, [member](LinkConstants& c) -> double& { return c.*member; }};
}
// NVLink/xGMI per link and direction: the GPU catalogue's datasheet rate of the architecture.
LinkParamDecl peer_link(const char* name, GpuArch arch) {
  const GpuModel& m = architecture_model(arch);
  return gbs(name, m.peer_link_gbs(), m.fabric_source,
             [arch](LinkConstants& c) -> double& { return c.peer_link_gbs[static_cast<std::size_t>(arch)]; });
}
// PCIe per lane and direction: GT/s x encoding efficiency / 8 bits.
LinkParamDecl pcie_lane(const char* name, int gen, double value, const char* source) {
  const auto i = static_cast<std::size_t>(gen - kMinPcieGen);
  return gbs(name, value, source, [i](LinkConstants& c) -> double& { return c.pcie_lane_gbs[i]; });
}
// CPU-to-CPU interconnect per direction: NCCL's model values, the only sourced per-platform numbers.
LinkParamDecl cpu(const char* name, CpuFamily family, double value, const char* source) {
  return gbs(name, value, source, [family](LinkConstants& c) -> double& { return c.cpu_gbs[static_cast<std::size_t>(family)]; });
}

std::vector<LinkParamDecl> make_decls() {
  using C = LinkConstants;
  return {
      peer_link("link.nvlink.sm70.bw_per_link", GpuArch::Volta),
      peer_link("link.nvlink.sm80.bw_per_link", GpuArch::Ampere),
      peer_link("link.nvlink.sm90.bw_per_link", GpuArch::Hopper),
      peer_link("link.nvlink.sm100.bw_per_link", GpuArch::Blackwell),
      peer_link("link.xgmi.bw_per_link", GpuArch::Cdna3),
      pcie_lane("link.pcie.gen1.bw_per_lane", 1, 0.25, "PCIe 1.0 spec: 2.5 GT/s, 8b/10b"),
      pcie_lane("link.pcie.gen2.bw_per_lane", 2, 0.5, "PCIe 2.0 spec: 5 GT/s, 8b/10b"),
      pcie_lane("link.pcie.gen3.bw_per_lane", 3, 8.0 * 128 / 130 / 8, "PCIe 3.0 spec: 8 GT/s, 128b/130b"),
      pcie_lane("link.pcie.gen4.bw_per_lane", 4, 16.0 * 128 / 130 / 8, "PCIe 4.0 spec: 16 GT/s, 128b/130b"),
      pcie_lane("link.pcie.gen5.bw_per_lane", 5, 32.0 * 128 / 130 / 8, "PCIe 5.0 spec: 32 GT/s, 128b/130b"),
      pcie_lane("link.pcie.gen6.bw_per_lane", 6, 64.0 * 236 / 256 / 8, "PCIe 6.0 spec: 64 GT/s PAM4, 256-byte FLIT carrying 236 TLP bytes"),
      cpu("link.cpu.intel_bdw.bw", CpuFamily::IntelBdw, 6.0, "NCCL src/graph/topo.h BDW_QPI_BW"),
      cpu("link.cpu.intel_skl.bw", CpuFamily::IntelSkl, 10.0, "NCCL src/graph/topo.h SKL_QPI_BW"),
      cpu("link.cpu.intel_srp.bw", CpuFamily::IntelSrp, 22.0, "NCCL src/graph/topo.h SRP_QPI_BW"),
      cpu("link.cpu.intel_erp.bw", CpuFamily::IntelErp, 40.0, "NCCL src/graph/topo.h ERP_QPI_BW (2.28+)"),
      cpu("link.cpu.amd.bw", CpuFamily::Amd, 16.0, "NCCL src/graph/topo.h AMD_BW"),
      cpu("link.cpu.zhaoxin.bw", CpuFamily::Zhaoxin, 6.0, "NCCL src/graph/topo.h ZPI_BW"),
      cpu("link.cpu.arm.bw", CpuFamily::Arm, 6.0, "NCCL src/graph/topo.h ARM_BW"),
      cpu("link.cpu.power.bw", CpuFamily::Power, 32.0, "NCCL src/graph/topo.h P9_BW"),
      // Hop latencies (alpha). NCCL gives per-step latencies (tuning.cc hwLatencies, Ring LL); a step
      // through a switch is two hops, so switched hops carry half of it.
      us("link.nvlink.latency", 0.6, "NCCL src/graph/tuning.cc hwLatencies[NVLINK][Ring][LL]", &C::nvlink_latency_us),
      // NCCL's 0.6 us/step is a conservative tuning figure; measured H100 NVSwitch steps are shorter.
      us("link.nvswitch.latency", 0.2557,
         "measured: NCCL 2.18.3 ring-LL 1 KB allreduce 13.12 us (14 steps) and allgather 9.54 us (7 steps) on "
         "8x H100 NVSwitch (Azure/msccl docs/performance-nd-h100-v5.md): (13.12-9.54)/7 = 0.511 us/step, 2 hops; "
         "fitted on those 2 points only, the other 40 are held out (tests/sim/fidelity_test.cpp)",
         &C::nvswitch_latency_us),
      us("link.xgmi.latency", 0.6, "as link.nvlink.latency: RCCL types xGMI as LINK_NVL and keeps NCCL's table", &C::xgmi_latency_us),
      us("link.pcie.latency", 0.5, "half of NCCL hwLatencies[PCI][Ring][LL] = 1.0 (GPU-switch-GPU step)", &C::pcie_latency_us),
      us("link.cpu.latency", 0.5, "as link.pcie.latency: NCCL has no separate SYS latency, it uses hwLat[PCI]", &C::cpu_latency_us),
      us("link.ib.latency", 1.35, "half of NCCL hwLatencies[NET][Ring][LL] = 2.7 (NIC-switch-NIC step)", &C::ib_latency_us),
      us("link.netswitch.latency", 0.13, "NVIDIA Quantum QM8700 datasheet: 130 ns port-to-port", &C::netswitch_latency_us),
  };
}

const std::vector<LinkParamDecl>& link_param_decls() {
  static const std::vector<LinkParamDecl> decls = make_decls();
  return decls;
}

}  // namespace

ParamTable default_link_params() {
  ParamTable table;
  for (const LinkParamDecl& d : link_param_decls()) table.add(d.param);
  return table;
}

LinkConstants bind_link_constants(const ParamTable& table) {
  LinkConstants c;
  for (const LinkParamDecl& d : link_param_decls()) d.field(c) = table.get(d.param.name);
  return c;
}

void check_link_ranges(const std::vector<ProfileEntry>& profile) {
  for (const ProfileEntry& e : profile) {
    for (const LinkParamDecl& d : link_param_decls()) {
      if (d.param.name != e.name) continue;
      if (const std::optional<std::string_view> rule = d.range(e.value))
        fail_at(e.loc.file, e.loc.line, fmt::format("{} = {:g} is out of range", e.name, e.value), std::string(*rule));
    }
  }
}

}  // namespace ccforge::topo
