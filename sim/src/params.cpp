// Every constant of the simulator's physical model, declared once: profile name, unit, range, default,
// source, and the SimConstants field it binds to. `ccforge sim --dump-params` prints this table and
// profiles override its entries by name. NCCL's own tuning-model tables (used only to reproduce NCCL's
// choice of algorithm, not to time anything) live in nccl/tuning_tables*.hpp.
#include "param_decls.hpp"

#include <cmath>
#include <limits>

#include "nccl/tuning_tables_2_18.hpp"
#include "nccl/tuning_tables_2_28.hpp"

namespace ccforge::sim {
namespace {

using ir::Protocol;
using topo::GpuArch;

const std::string kTuning = "NCCL v2.28.9 src/graph/tuning.cc ncclTunerConstantsDefaults";
// The 2.28.9 tables sim/src/nccl carries for NCCL's own choice; the defaults below read them rather than
// repeat their numbers.
const nccl::TuningConstants& kNccl = nccl::kNccl2_28_9;
double ll_max_bw(GpuArch a) { return kNccl.ll_max_bw[nccl::arch_row(a)][0]; }  // one node
double ring_ll128_bw(GpuArch a) { return kNccl.per_ch_max_ring_ll128_bw[nccl::arch_row(a)][0]; }
double base_lat(int proto) { return kNccl.base_lat[nccl::kRing][proto]; }
// NCCL's effective NVLink rate (topo.h SMxx_NVLINK_BW) over the datasheet's per-link rate (the GPU
// catalogue's, which the topology's link model also starts from).
double nvlink_share(GpuArch a) { return kNccl.nvlink_bw_per_link[nccl::arch_row(a)] / topo::architecture_model(a).peer_link_gbs(); }
const std::string kSearch = "NCCL v2.28.9 src/graph/search.cc";
// sim.msccl.tb_bw.LL128.sm90, fitted (executor_params).
constexpr double kMscclLL128TbBwSm90 = 11.0;
// sim.rccl.msccl.*, fitted (rccl_params).
constexpr double kRcclMscclBaseUs = 8.8;
constexpr double kRcclMscclSimpleTbBw = 4.3;

// Ranges, each with the rule a profile is told when its value breaks it.
std::optional<std::string_view> ratio(double v) {
  return v > 0.0 && v <= 1.0 ? std::nullopt : std::optional<std::string_view>("a ratio lies in (0, 1]");
}
std::optional<std::string_view> rate(double v) {
  return v > 0.0 ? std::nullopt : std::optional<std::string_view>("a rate is above 0");
}
std::optional<std::string_view> latency(double v) {
  return v >= 0.0 ? std::nullopt : std::optional<std::string_view>("a latency is at least 0");
}
std::optional<std::string_view> channels(double v) {
  return v >= 1.0 ? std::nullopt : std::optional<std::string_view>("at least 1 channel");
}
// -1 (the cluster transport's own value) or a latency.
std::optional<std::string_view> own_or_latency(double v) {
  return v == -1.0 || v >= 0.0 ? std::nullopt : std::optional<std::string_view>("-1 (the transport's own) or a latency of at least 0");
}
// -1 (any) or a transport's profile value (sim/include/ccforge/sim/transports.hpp transport_profile_value).
std::optional<std::string_view> transport_kind(double v) {
  return v == std::round(v) && v >= -1.0 && v <= 5.0 ? std::nullopt
                                                     : std::optional<std::string_view>("-1 (any) or a transport 0-5");
}
// major.minor with two minor digits, as NCCL numbers its release lines (2.18, 2.28).
std::optional<std::string_view> version(double v) {
  const double hundredths = v * 100.0;
  return v > 0.0 && std::abs(hundredths - std::round(hundredths)) <= 1e-6
             ? std::nullopt
             : std::optional<std::string_view>("an NCCL version is major.minor, e.g. 2.18");
}

double read(double v) { return v; }
double read(int v) { return v; }
double read(const std::optional<double>& v) { return v.value_or(std::numeric_limits<double>::quiet_NaN()); }
void write(double& field, double v) { field = v; }
void write(int& field, double v) { field = static_cast<int>(v); }
void write(std::optional<double>& field, double v) { field = v; }

// Accessors of the three shapes of field: per protocol, per architecture, per architecture and protocol.
template <class M>
struct ProtocolField {
  Protocol p;
  M ProtocolConstants::*member;
  template <class C>
  auto& operator()(C& c) const { return c.protocol[index_of(p)].*member; }
};
template <class M>
struct ArchField {
  GpuArch a;
  M ArchConstants::*member;
  template <class C>
  auto& operator()(C& c) const { return c.arch[index_of(a)].*member; }
};
template <class M>
struct ArchProtocolField {
  GpuArch a;
  Protocol p;
  PerProtocol<M> ArchConstants::*member;
  template <class C>
  auto& operator()(C& c) const { return (c.arch[index_of(a)].*member)[index_of(p)]; }
};

template <class Field>
ParamDecl decl(std::string name, std::string unit, RangeCheck range, double value, std::string source, Field field) {
  return {std::move(name), std::move(unit), range, value, std::move(source),
          [field](const SimConstants& c) { return read(field(c)); },
          [field](SimConstants& c, double v) { write(field(c), v); }};
}

ParamDecl wire(Protocol p, std::string name, double value, std::string source) {
  return decl(std::move(name), "ratio", ratio, value, std::move(source), ProtocolField<double>{p, &ProtocolConstants::wire_efficiency});
}
ParamDecl sync(Protocol p, double ProtocolConstants::*member, std::string name, double value, std::string source) {
  return decl(std::move(name), "us", latency, value, std::move(source), ProtocolField<double>{p, member});
}
ParamDecl base(Protocol p, std::string name, double value, std::string source) {
  return decl(std::move(name), "us", latency, value, std::move(source), ProtocolField<double>{p, &ProtocolConstants::base_us});
}
ParamDecl tb_bw(GpuArch a, Protocol p, std::string name, double value, std::string source) {
  return decl(std::move(name), "GB/s", rate, value, std::move(source), ArchProtocolField<double>{a, p, &ArchConstants::tb_bw_gbs});
}
ParamDecl per_arch(GpuArch a, double ArchConstants::*member, std::string name, std::string unit, RangeCheck range, double value,
                   std::string source) {
  return decl(std::move(name), std::move(unit), range, value, std::move(source), ArchField<double>{a, member});
}
ParamDecl per_arch(GpuArch a, std::optional<double> ArchConstants::*member, std::string name, std::string unit,
                   RangeCheck range, double value, std::string source) {
  return decl(std::move(name), std::move(unit), range, value, std::move(source), ArchField<std::optional<double>>{a, member});
}

// HBM bandwidth from the GPU catalogue, with its datasheet.
ParamDecl hbm(GpuArch a, std::string name) {
  const topo::GpuModel& m = topo::architecture_model(a);
  return per_arch(a, &ArchConstants::hbm_gbs, std::move(name), "GB/s", rate, m.hbm_gbs, m.hbm_source);
}

void protocol_params(std::vector<ParamDecl>& out) {
  using C = ProtocolConstants;
  // Wire efficiency: payload bytes per byte on the link.
  out.push_back(wire(Protocol::LL, "sim.proto.LL.wire_efficiency", 0.5, "LL line = 8 B data + 8 B flag (NCCL src/device/prims_ll.h)"));
  out.push_back(wire(Protocol::LL128, "sim.proto.LL128.wire_efficiency", 120.0 / 128.0,
                     "LL128 line = 120 B data + 8 B flag (NCCL src/device/prims_ll128.h)"));
  out.push_back(wire(Protocol::Simple, "sim.proto.Simple.wire_efficiency", 1.0, "Simple sends full payload, flags out of band"));
  // Per-step protocol handoff beyond the route's own latency. NCCL's per-step latencies
  // (hwLatencies[path][RING][proto]) minus the LL one, which equals the route latency the topology
  // already charges (LL's flag travels inside the data line).
  out.push_back(sync(Protocol::LL, &C::sync_nvlink_us, "sim.sync.LL.nvlink_us", 0.0, kTuning + " hwLatencies[NVLINK][RING]: LL 0.6 - LL 0.6"));
  out.push_back(sync(Protocol::LL128, &C::sync_nvlink_us, "sim.sync.LL128.nvlink_us", 1.3, kTuning + " hwLatencies[NVLINK][RING]: LL128 1.9 - LL 0.6"));
  out.push_back(sync(Protocol::Simple, &C::sync_nvlink_us, "sim.sync.Simple.nvlink_us", 2.8, kTuning + " hwLatencies[NVLINK][RING]: SIMPLE 3.4 - LL 0.6"));
  out.push_back(sync(Protocol::LL, &C::sync_pcie_us, "sim.sync.LL.pcie_us", 0.0, kTuning + " hwLatencies[PCI][RING]: LL 1.0 - LL 1.0"));
  out.push_back(sync(Protocol::LL128, &C::sync_pcie_us, "sim.sync.LL128.pcie_us", 1.5, kTuning + " hwLatencies[PCI][RING]: LL128 2.5 - LL 1.0"));
  out.push_back(sync(Protocol::Simple, &C::sync_pcie_us, "sim.sync.Simple.pcie_us", 4.7, kTuning + " hwLatencies[PCI][RING]: SIMPLE 5.7 - LL 1.0"));
  out.push_back(sync(Protocol::LL, &C::sync_net_us, "sim.sync.LL.net_us", 0.0, kTuning + " hwLatencies[NET][RING]: LL 2.7 - LL 2.7"));
  out.push_back(sync(Protocol::LL128, &C::sync_net_us, "sim.sync.LL128.net_us", 1.3, kTuning + " hwLatencies[NET][RING]: LL128 4.0 - LL 2.7"));
  out.push_back(sync(Protocol::Simple, &C::sync_net_us, "sim.sync.Simple.net_us", 11.3, kTuning + " hwLatencies[NET][RING]: SIMPLE 14.0 - LL 2.7"));
  // Per-collective base latency: kernel launch, argument load, final barrier.
  out.push_back(base(Protocol::LL, "sim.base.LL_us", base_lat(nccl::kLL), kTuning + " baseLatencies[RING][LL]"));
  out.push_back(base(Protocol::LL128, "sim.base.LL128_us", base_lat(nccl::kLL128), kTuning + " baseLatencies[RING][LL128]"));
  out.push_back(base(Protocol::Simple, "sim.base.Simple_us", base_lat(nccl::kSimple), kTuning + " baseLatencies[RING][SIMPLE]"));
}

// Payload one threadblock (one channel) can move per second: one channel cannot fill NVLink.
void threadblock_params(std::vector<ParamDecl>& out) {
  out.push_back(tb_bw(GpuArch::Volta, Protocol::LL, "sim.tb_bw.LL.sm70", ll_max_bw(GpuArch::Volta) / 16.0, kTuning + " llMaxBws[VOLTA][1 node] 39 over 16 channels"));
  out.push_back(tb_bw(GpuArch::Ampere, Protocol::LL, "sim.tb_bw.LL.sm80", ll_max_bw(GpuArch::Ampere) / 16.0, kTuning + " llMaxBws[AMPERE][1 node] 87.7 over 16 channels"));
  out.push_back(tb_bw(GpuArch::Hopper, Protocol::LL, "sim.tb_bw.LL.sm90", ll_max_bw(GpuArch::Hopper) / 16.0, kTuning + " llMaxBws[HOPPER][1 node] 141 over 16 channels"));
  out.push_back(tb_bw(GpuArch::Blackwell, Protocol::LL, "sim.tb_bw.LL.sm100", ll_max_bw(GpuArch::Blackwell) / 16.0, kTuning + " llMaxBws[BLACKWELL][1 node] 282 over 16 channels"));
  out.push_back(tb_bw(GpuArch::Cdna3, Protocol::LL, "sim.tb_bw.LL.cdna3", ll_max_bw(GpuArch::Ampere) / 16.0, "assumed as sm80: no published per-channel figure"));
  out.push_back(tb_bw(GpuArch::Volta, Protocol::LL128, "sim.tb_bw.LL128.sm70", ring_ll128_bw(GpuArch::Volta), kTuning + " perChMaxRingLL128Bws[VOLTA]"));
  out.push_back(tb_bw(GpuArch::Ampere, Protocol::LL128, "sim.tb_bw.LL128.sm80", ring_ll128_bw(GpuArch::Ampere), kTuning + " perChMaxRingLL128Bws[AMPERE]"));
  out.push_back(tb_bw(GpuArch::Hopper, Protocol::LL128, "sim.tb_bw.LL128.sm90", ring_ll128_bw(GpuArch::Hopper), kTuning + " perChMaxRingLL128Bws[HOPPER]"));
  out.push_back(tb_bw(GpuArch::Blackwell, Protocol::LL128, "sim.tb_bw.LL128.sm100", ring_ll128_bw(GpuArch::Blackwell), kTuning + " perChMaxRingLL128Bws[BLACKWELL]"));
  out.push_back(tb_bw(GpuArch::Cdna3, Protocol::LL128, "sim.tb_bw.LL128.cdna3", ring_ll128_bw(GpuArch::Ampere), "assumed as sm80: no published per-channel figure"));
  out.push_back(tb_bw(GpuArch::Volta, Protocol::Simple, "sim.tb_bw.Simple.sm70", nccl::kSpeedArrayIntra[0], kSearch + " speedArrayIntra[0] (fastest per-channel speed searched)"));
  out.push_back(tb_bw(GpuArch::Ampere, Protocol::Simple, "sim.tb_bw.Simple.sm80", nccl::kSpeedArrayIntra[0], kSearch + " speedArrayIntra[0] (fastest per-channel speed searched)"));
  out.push_back(tb_bw(GpuArch::Hopper, Protocol::Simple, "sim.tb_bw.Simple.sm90", kNccl.channel_search.sm90_intra_speeds[0], kSearch + " sm90SpeedArrayIntra[0] (fastest per-channel speed searched)"));
  out.push_back(tb_bw(GpuArch::Blackwell, Protocol::Simple, "sim.tb_bw.Simple.sm100", kNccl.channel_search.sm90_intra_speeds[0], "assumed as sm90: not re-read for sm100"));
  out.push_back(tb_bw(GpuArch::Cdna3, Protocol::Simple, "sim.tb_bw.Simple.cdna3", nccl::kSpeedArrayIntra[0], "assumed as sm80: no published per-channel figure"));
}

// LL's 8-byte flagged stores cap what a whole GPU can issue, whatever its channel count.
void gpu_issue_params(std::vector<ParamDecl>& out) {
  const auto ll = [](GpuArch a, std::string name, double value, std::string source) {
    return decl(std::move(name), "GB/s", rate, value, std::move(source),
                ArchProtocolField<std::optional<double>>{a, Protocol::LL, &ArchConstants::gpu_bw_gbs});
  };
  out.push_back(ll(GpuArch::Volta, "sim.gpu_bw.LL.sm70", ll_max_bw(GpuArch::Volta), kTuning + " llMaxBws[VOLTA][1 node]"));
  out.push_back(ll(GpuArch::Ampere, "sim.gpu_bw.LL.sm80", ll_max_bw(GpuArch::Ampere), kTuning + " llMaxBws[AMPERE][1 node]"));
  out.push_back(ll(GpuArch::Hopper, "sim.gpu_bw.LL.sm90", ll_max_bw(GpuArch::Hopper), kTuning + " llMaxBws[HOPPER][1 node]"));
  out.push_back(ll(GpuArch::Blackwell, "sim.gpu_bw.LL.sm100", ll_max_bw(GpuArch::Blackwell), kTuning + " llMaxBws[BLACKWELL][1 node]"));
  out.push_back(ll(GpuArch::Cdna3, "sim.gpu_bw.LL.cdna3", ll_max_bw(GpuArch::Ampere), "assumed as sm80: no published figure"));
}

void hardware_params(std::vector<ParamDecl>& out) {
  using A = ArchConstants;
  // Local reductions and copies stream through HBM (2 reads + 1 write per reduced byte).
  out.push_back(hbm(GpuArch::Volta, "sim.hbm_bw.sm70"));
  out.push_back(hbm(GpuArch::Ampere, "sim.hbm_bw.sm80"));
  out.push_back(hbm(GpuArch::Hopper, "sim.hbm_bw.sm90"));
  out.push_back(hbm(GpuArch::Blackwell, "sim.hbm_bw.sm100"));
  out.push_back(hbm(GpuArch::Cdna3, "sim.hbm_bw.cdna3"));
  // Achievable share of a link's raw rate (packet headers, flow control): NCCL's effective per-link
  // value over the datasheet's.
  out.push_back(per_arch(GpuArch::Volta, &A::nvlink_efficiency, "sim.link.nvlink.efficiency.sm70", "ratio", ratio, nvlink_share(GpuArch::Volta),
                         "NCCL src/graph/topo.h SM70_NVLINK_BW 20 / datasheet 25 GB/s"));
  out.push_back(per_arch(GpuArch::Ampere, &A::nvlink_efficiency, "sim.link.nvlink.efficiency.sm80", "ratio", ratio, nvlink_share(GpuArch::Ampere),
                         "NCCL src/graph/topo.h SM80_NVLINK_BW 20 / datasheet 25 GB/s"));
  out.push_back(per_arch(GpuArch::Hopper, &A::nvlink_efficiency, "sim.link.nvlink.efficiency.sm90", "ratio", ratio, nvlink_share(GpuArch::Hopper),
                         "NCCL src/graph/topo.h SM90_NVLINK_BW 20.6 / datasheet 25 GB/s"));
  out.push_back(per_arch(GpuArch::Blackwell, &A::nvlink_efficiency, "sim.link.nvlink.efficiency.sm100", "ratio", ratio, nvlink_share(GpuArch::Blackwell),
                         "NCCL src/graph/topo.h SM100_NVLINK_BW 40.1 / datasheet 50 GB/s"));
  out.push_back(per_arch(GpuArch::Cdna3, &A::nvlink_efficiency, "sim.link.nvlink.efficiency.cdna3", "ratio", ratio, 48.0 / 64.0,
                         "xGMI (GPU-GPU links of AMD GPUs): ~48 of 64 GB/s usable per link, AMD ROCm blog 'Understanding RCCL Bandwidth "
                         "and xGMI Performance on AMD Instinct MI300X' (2025)"));
  // What an alltoall's sends to every NVLink peer at once reach of a GPU's NVLink rate (NCCL's p2p past
  // its channel and warp layout, p2p_layout.hpp; MSCCL alltoall files on one node): measured, not
  // derived from NCCL's source.
  out.push_back(per_arch(GpuArch::Hopper, &A::p2p_nvlink_share, "sim.p2p.nvlink_share.sm90", "ratio", ratio, 0.90,
                         "fitted on tests/data/nccl-tests/h100_8gpu_1node_alltoall_nccl228.log, all 10 rows: the smallest worst row (2.29 log held out)"));
  out.push_back(decl("sim.link.net.efficiency", "ratio", ratio, 12.0 / 12.5, "NCCL src/graph/topo.h NET_BW 12 / 100 Gb/s line rate 12.5 GB/s",
                     [](auto& c) -> auto& { return c.net_efficiency; }));
  // NVSwitch in-network reduction (NVLS: multimem.ld_reduce then multimem.st).
  out.push_back(per_arch(GpuArch::Hopper, &A::nvls_efficiency, "sim.nvls.efficiency.sm90", "ratio", ratio, kNccl.nvls_efficiency[nccl::arch_row(GpuArch::Hopper)], kTuning + " nvlsEfficiency[HOPPER]"));
  out.push_back(per_arch(GpuArch::Blackwell, &A::nvls_efficiency, "sim.nvls.efficiency.sm100", "ratio", ratio, kNccl.nvls_efficiency[nccl::arch_row(GpuArch::Blackwell)], kTuning + " nvlsEfficiency[BLACKWELL]"));
  out.push_back(decl("sim.nvls.base_us", "us", latency, nccl::kNccl2_18_3.base_lat[nccl::kNvls][nccl::kSimple],
                     "NCCL v2.18.3 src/graph/tuning.cc baseLat[NVLS][SIMPLE] (NVLS's whole-call latency; 2.28 puts 25 in hwLat)",
                     [](auto& c) -> auto& { return c.nvls_base_us; }));
  out.push_back({"sim.nccl.version", "version", version, 2.18,
                 "NCCL (major.minor) whose tuning tables pick the baseline: 2.18, 2.21, 2.22, 2.23, 2.26, 2.27 or 2.28 "
                 "(sim/src/nccl/tuning_tables*.hpp, read at NVIDIA/nccl tags); 2.18.3 produced the published ND H100 v5 numbers",
                 [](const SimConstants& c) { return nccl_version_number(c.nccl_version); },
                 [](SimConstants& c, double v) { c.nccl_version = nccl_version_of(v); }});
  out.push_back(decl("sim.nccl.nchannels", "channels", channels, 0,
                     "0: NCCL's own graph search (sim/src/nccl/default_channels.cpp, from NVIDIA/nccl src/graph/search.cc and "
                     "connect.cc); a positive value replaces the searched count (NCCL_MIN/MAX_NCHANNELS still apply)",
                     [](auto& c) -> auto& { return c.nccl_nchannels; }));
  out.push_back(decl("sim.nccl.nchannels.underived", "channels", channels, 32,
                     "where the search is not derived (RCCL on MI300X, which matches hand-made models in ROCm/rccl "
                     "src/graph/rome_models.cc; one GPU per node; Blackwell; several nodes without NVSwitch): the earlier "
                     "default, Azure's NCCL_MIN_NCHANNELS=32",
                     [](auto& c) -> auto& { return c.nccl_nchannels_underived; }));
  // The benchmark's launch: one kernel launch per GPU a thread drives, per iteration.
  out.push_back(decl("sim.launch.host_per_gpu_us", "us", latency, 4.555,
                     "fitted: median 36.44 us / 8 GPUs of the 15 rows 8 B-128 KB of an nccl-tests -g 8 log (H100, NCCL 2.26.2, "
                     "tests/data/nccl-tests/h100_8gpu_1node_allreduce_ring.log), sizes where the GPUs finish sooner",
                     [](auto& c) -> auto& { return c.launch_host_per_gpu_us; }));
  // Network transfers pass through the CPU proxy thread and the NIC.
  out.push_back(decl("sim.net.proxy_us", "us", latency, nccl::kNetOverheadUs, "NCCL v2.28.9 src/graph/tuning.cc getNetOverhead (Intel CPU: 1 us)",
                     [](auto& c) -> auto& { return c.net_proxy_us; }));
  // The profile boundary of the cluster's transport (sim/src/net/transports.cpp holds its constants).
  out.push_back(decl("sim.net.message_us", "us", own_or_latency, -1.0,
                     "-1: the cluster transport's own per-message cost; calibrate fits it on one log of that cluster",
                     [](auto& c) -> auto& { return c.net_message_us; }));
  out.push_back(decl("sim.net.transport", "kind", transport_kind, -1.0,
                     "-1: any; calibrate records its cluster's transport (ib 0, roce 1, efa 2, tcpxo 3, tcpx 4, socket 5)",
                     [](auto& c) -> auto& { return c.net_transport; }));
}

// msccl-executor-nccl's runtime, measured on the published ND H100 v5 MSCCL column
// (tests/data/ndv5_msccl_vs_nccl_fp16.csv), one row each; MSCCL fidelity holds the other rows out.
void msccl_params(std::vector<ParamDecl>& out) {
  out.push_back(decl("sim.msccl.base_us", "us", latency, 5.14,
                     "ND H100 v5 MSCCL allgather 1 KB row (ag-1k-512k: one LL send per peer): 5.65 us minus one NVSwitch "
                     "round (2 x link.nvswitch.latency 0.2557 us)",
                     [](auto& c) -> auto& { return c.msccl.base_us; }));
  out.push_back(decl("sim.msccl.dep_us", "us", latency, 1.8,
                     "ND H100 v5 MSCCL allreduce 1 KB row (ap-1pass: receive, one flag handoff, local reduce): 7.50 us is met "
                     "with the base above at 1.80 us per handoff",
                     [](auto& c) -> auto& { return c.msccl.dep_us; }));
  out.push_back(decl("sim.msccl.line_forward_us", "us", latency, 0.45,
                     "ND H100 v5 MSCCL allreduce 512 KB row (r48ll: LL ring, 12 forwarding hops per chunk): 19.14 us is met "
                     "at 0.45 us per forwarding step",
                     [](auto& c) -> auto& { return c.msccl.line_forward_us; }));
}

// msccl-executor-nccl's threadblocks: the wire bytes/s one of them moves in LL128, fitted on sm90
// (tests/sim/msccl_fidelity_test.cpp: fitted rows against held-out ones). No other generation has a
// published MSCCL measurement, so they keep sim.tb_bw.LL128 (as LL and Simple everywhere).
void executor_params(std::vector<ParamDecl>& out) {
  out.push_back(per_arch(GpuArch::Hopper, &ArchConstants::msccl_ll128_tb_bw_gbs, "sim.msccl.tb_bw.LL128.sm90", "GB/s", rate,
                         kMscclLL128TbBwSm90,
                         "fitted: least median |error| on the published ND H100 v5 MSCCL allreduce rows of r48ll128 (2-16 MB; ag-2m "
                         "is held out)"));
}

// RCCL's MSCCL kernel, for every MSCCL file on AMD GPUs: its bundled all-pairs allreduce on MI300X
// (sim/src/nccl/rccl_msccl.cpp) and ccforge's own files (sim/src/costs.cpp msccl_protocol_costs). The
// two rates were fitted on the one public MI300X log (tests/data/nccl-tests/mi300x_8gpu_1node_allreduce.log,
// out-of-place rows); the rows each constant was not fitted on are held out (tests/validate).
void rccl_params(std::vector<ParamDecl>& out) {
  out.push_back(decl("sim.rccl.msccl.base_us", "us", latency, kRcclMscclBaseUs,
                     "fitted: median of the MI300X log's LL rows 1-64 KB (allreduce-allpairs-8n-ll-32tb) minus their simulated data "
                     "movement and its two cross-threadblock handoffs (2 x sim.msccl.dep_us)",
                     [](auto& c) -> auto& { return c.rccl.base_us; }));
  out.push_back(decl("sim.rccl.msccl.tb_bw.Simple.cdna3", "GB/s", rate, kRcclMscclSimpleTbBw,
                     "fitted: payload one MSCCL Simple threadblock moves, from the slope of the MI300X log's rows 4-16 MB "
                     "(allreduce-allpairs-8n-simple, 8 threadblocks per xGMI link); 512 KB-2 MB are held out",
                     ArchProtocolField<std::optional<double>>{GpuArch::Cdna3, Protocol::Simple, &ArchConstants::rccl_msccl_tb_bw_gbs}));
  out.push_back(decl("sim.rccl.proto.LL128.wire_efficiency", "ratio", ratio, 56.0 / 64.0,
                     "RCCL's LL128 line = 64 B, 7 of its 8 uint64 data, 1 flag (ROCm/rccl @0cbce2a7 src/include/device.h "
                     "NCCL_LL128_LINESIZE 64, NCCL_LL128_DATAELEMS = LINEELEMS - 1), in every MSCCL file RCCL runs",
                     [](auto& c) -> auto& { return c.rccl.wire_efficiency[index_of(Protocol::LL128)]; }));
}

std::vector<ParamDecl> make_decls() {
  std::vector<ParamDecl> out;
  for (auto* group : {&protocol_params, &threadblock_params, &gpu_issue_params, &hardware_params, &msccl_params, &executor_params, &rccl_params})
    (*group)(out);
  return out;
}

}  // namespace

const std::vector<ParamDecl>& sim_param_decls() {
  static const std::vector<ParamDecl> decls = make_decls();
  return decls;
}

const ParamDecl* find_sim_param(std::string_view name) {
  for (const ParamDecl& d : sim_param_decls())
    if (d.name == name) return &d;
  return nullptr;
}

const SimConstants& default_sim_constants() {
  static const SimConstants defaults = [] {
    SimConstants c;
    for (const ParamDecl& d : sim_param_decls()) d.set(c, d.default_value);
    return c;
  }();
  return defaults;
}

}  // namespace ccforge::sim
