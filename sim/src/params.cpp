// Every constant of the simulator's physical model: value, unit, source. Profiles override by name
// ("sim." entries); `ccforge sim --dump-params` prints this table. NCCL's own tuning-model tables (used
// only to reproduce NCCL's choice of algorithm, not to time anything) live in nccl/tuning_tables.hpp.
#include "ccforge/sim/sim.hpp"

#include <string>

namespace ccforge::sim {
namespace {

const std::string kTuning = "NCCL v2.28.9 src/graph/tuning.cc ncclTunerConstantsDefaults";
const std::string kSearch = "NCCL v2.28.9 src/graph/search.cc";
// sim.msccl.tb_bw.LL128.sm90, fitted (executor_params).
constexpr double kMscclLL128TbBwSm90 = 11.0;
// sim.rccl.msccl.*, fitted (rccl_params).
constexpr double kRcclMscclBaseUs = 8.8;
constexpr double kRcclMscclSimpleTbBw = 4.3;

std::vector<Param> protocol_params() {
  return {
      // Wire efficiency: payload bytes per byte on the link.
      {"sim.proto.LL.wire_efficiency", 0.5, "ratio", "LL line = 8 B data + 8 B flag (NCCL src/device/prims_ll.h)"},
      {"sim.proto.LL128.wire_efficiency", 120.0 / 128.0, "ratio",
       "LL128 line = 120 B data + 8 B flag (NCCL src/device/prims_ll128.h)"},
      {"sim.proto.Simple.wire_efficiency", 1.0, "ratio", "Simple sends full payload, flags out of band"},
      // Per-step protocol handoff beyond the route's own latency. NCCL's per-step latencies
      // (hwLatencies[path][RING][proto]) minus the LL one, which equals the route latency the topology
      // already charges (LL's flag travels inside the data line).
      {"sim.sync.LL.nvlink_us", 0.0, "us", kTuning + " hwLatencies[NVLINK][RING]: LL 0.6 - LL 0.6"},
      {"sim.sync.LL128.nvlink_us", 1.3, "us", kTuning + " hwLatencies[NVLINK][RING]: LL128 1.9 - LL 0.6"},
      {"sim.sync.Simple.nvlink_us", 2.8, "us", kTuning + " hwLatencies[NVLINK][RING]: SIMPLE 3.4 - LL 0.6"},
      {"sim.sync.LL.pcie_us", 0.0, "us", kTuning + " hwLatencies[PCI][RING]: LL 1.0 - LL 1.0"},
      {"sim.sync.LL128.pcie_us", 1.5, "us", kTuning + " hwLatencies[PCI][RING]: LL128 2.5 - LL 1.0"},
      {"sim.sync.Simple.pcie_us", 4.7, "us", kTuning + " hwLatencies[PCI][RING]: SIMPLE 5.7 - LL 1.0"},
      {"sim.sync.LL.net_us", 0.0, "us", kTuning + " hwLatencies[NET][RING]: LL 2.7 - LL 2.7"},
      {"sim.sync.LL128.net_us", 1.3, "us", kTuning + " hwLatencies[NET][RING]: LL128 4.0 - LL 2.7"},
      {"sim.sync.Simple.net_us", 11.3, "us", kTuning + " hwLatencies[NET][RING]: SIMPLE 14.0 - LL 2.7"},
      // Per-collective base latency: kernel launch, argument load, final barrier.
      {"sim.base.LL_us", 6.6, "us", kTuning + " baseLatencies[RING][LL]"},
      {"sim.base.LL128_us", 14.0, "us", kTuning + " baseLatencies[RING][LL128]"},
      {"sim.base.Simple_us", 8.4, "us", kTuning + " baseLatencies[RING][SIMPLE]"},
  };
}

// Payload one threadblock (one channel) can move per second: one channel cannot fill NVLink.
std::vector<Param> threadblock_params() {
  return {
      {"sim.tb_bw.LL.sm70", 39.0 / 16.0, "GB/s", kTuning + " llMaxBws[VOLTA][1 node] 39 over 16 channels"},
      {"sim.tb_bw.LL.sm80", 87.7 / 16.0, "GB/s", kTuning + " llMaxBws[AMPERE][1 node] 87.7 over 16 channels"},
      {"sim.tb_bw.LL.sm90", 141.0 / 16.0, "GB/s", kTuning + " llMaxBws[HOPPER][1 node] 141 over 16 channels"},
      {"sim.tb_bw.LL.sm100", 282.0 / 16.0, "GB/s", kTuning + " llMaxBws[BLACKWELL][1 node] 282 over 16 channels"},
      {"sim.tb_bw.LL.cdna3", 87.7 / 16.0, "GB/s", "assumed as sm80: no published per-channel figure"},
      {"sim.tb_bw.LL128.sm70", 20.0, "GB/s", kTuning + " perChMaxRingLL128Bws[VOLTA]"},
      {"sim.tb_bw.LL128.sm80", 20.0, "GB/s", kTuning + " perChMaxRingLL128Bws[AMPERE]"},
      {"sim.tb_bw.LL128.sm90", 36.7, "GB/s", kTuning + " perChMaxRingLL128Bws[HOPPER]"},
      {"sim.tb_bw.LL128.sm100", 73.4, "GB/s", kTuning + " perChMaxRingLL128Bws[BLACKWELL]"},
      {"sim.tb_bw.LL128.cdna3", 20.0, "GB/s", "assumed as sm80: no published per-channel figure"},
      {"sim.tb_bw.Simple.sm70", 40.0, "GB/s", kSearch + " speedArrayIntra[0] (fastest per-channel speed searched)"},
      {"sim.tb_bw.Simple.sm80", 40.0, "GB/s", kSearch + " speedArrayIntra[0] (fastest per-channel speed searched)"},
      {"sim.tb_bw.Simple.sm90", 60.0, "GB/s", kSearch + " sm90SpeedArrayIntra[0] (fastest per-channel speed searched)"},
      {"sim.tb_bw.Simple.sm100", 60.0, "GB/s", "assumed as sm90: not re-read for sm100"},
      {"sim.tb_bw.Simple.cdna3", 40.0, "GB/s", "assumed as sm80: no published per-channel figure"},
  };
}

// LL's 8-byte flagged stores cap what a whole GPU can issue, whatever its channel count.
std::vector<Param> gpu_issue_params() {
  return {
      {"sim.gpu_bw.LL.sm70", 39.0, "GB/s", kTuning + " llMaxBws[VOLTA][1 node]"},
      {"sim.gpu_bw.LL.sm80", 87.7, "GB/s", kTuning + " llMaxBws[AMPERE][1 node]"},
      {"sim.gpu_bw.LL.sm90", 141.0, "GB/s", kTuning + " llMaxBws[HOPPER][1 node]"},
      {"sim.gpu_bw.LL.sm100", 282.0, "GB/s", kTuning + " llMaxBws[BLACKWELL][1 node]"},
      {"sim.gpu_bw.LL.cdna3", 87.7, "GB/s", "assumed as sm80: no published figure"},
  };
}

std::vector<Param> hardware_params() {
  return {
      // Local reductions and copies stream through HBM (2 reads + 1 write per reduced byte).
      {"sim.hbm_bw.sm70", 900.0, "GB/s", "NVIDIA V100 SXM2 datasheet, HBM2 900 GB/s"},
      {"sim.hbm_bw.sm80", 2039.0, "GB/s", "NVIDIA A100 80GB SXM datasheet, HBM2e 2,039 GB/s"},
      {"sim.hbm_bw.sm90", 3350.0, "GB/s", "NVIDIA H100 SXM5 datasheet, HBM3 3.35 TB/s"},
      {"sim.hbm_bw.sm100", 8000.0, "GB/s", "NVIDIA DGX B200 datasheet, HBM3e 8 TB/s per GPU"},
      {"sim.hbm_bw.cdna3", 5300.0, "GB/s", "AMD Instinct MI300X datasheet, HBM3 5.3 TB/s"},
      // Achievable share of a link's raw rate (packet headers, flow control): NCCL's effective per-link
      // value over the datasheet's.
      {"sim.link.nvlink.efficiency.sm70", 20.0 / 25.0, "ratio", "NCCL src/graph/topo.h SM70_NVLINK_BW 20 / datasheet 25 GB/s"},
      {"sim.link.nvlink.efficiency.sm80", 20.0 / 25.0, "ratio", "NCCL src/graph/topo.h SM80_NVLINK_BW 20 / datasheet 25 GB/s"},
      {"sim.link.nvlink.efficiency.sm90", 20.6 / 25.0, "ratio", "NCCL src/graph/topo.h SM90_NVLINK_BW 20.6 / datasheet 25 GB/s"},
      {"sim.link.nvlink.efficiency.sm100", 40.1 / 50.0, "ratio", "NCCL src/graph/topo.h SM100_NVLINK_BW 40.1 / datasheet 50 GB/s"},
      {"sim.link.nvlink.efficiency.cdna3", 48.0 / 64.0, "ratio",
       "xGMI (GPU-GPU links of AMD GPUs): ~48 of 64 GB/s usable per link, AMD ROCm blog 'Understanding RCCL Bandwidth "
       "and xGMI Performance on AMD Instinct MI300X' (2025)"},
      {"sim.link.net.efficiency", 12.0 / 12.5, "ratio", "NCCL src/graph/topo.h NET_BW 12 / 100 Gb/s line rate 12.5 GB/s"},
      // NVSwitch in-network reduction (NVLS: multimem.ld_reduce then multimem.st).
      {"sim.nvls.efficiency.sm90", 0.85, "ratio", kTuning + " nvlsEfficiency[HOPPER]"},
      {"sim.nvls.efficiency.sm100", 0.74, "ratio", kTuning + " nvlsEfficiency[BLACKWELL]"},
      {"sim.nvls.base_us", 23.0, "us",
       "NCCL v2.18.3 src/graph/tuning.cc baseLat[NVLS][SIMPLE] (NVLS's whole-call latency; 2.28 puts 25 in hwLat)"},
      // Network transfers pass through the CPU proxy thread and the NIC.
          {"sim.nccl.version", 2.18, "version",
       "NCCL (major.minor) whose tuning tables pick the baseline: 2.18, 2.21, 2.22, 2.23, 2.26, 2.27 or 2.28 "
       "(sim/src/nccl/tuning_tables*.hpp, read at NVIDIA/nccl tags); 2.18.3 produced the published ND H100 v5 numbers"},
      {"sim.nccl.nchannels", 0, "channels",
       "0: NCCL's own graph search (sim/src/nccl/default_channels.cpp, from NVIDIA/nccl src/graph/search.cc and "
       "connect.cc); a positive value replaces the searched count (NCCL_MIN/MAX_NCHANNELS still apply)"},
      {"sim.nccl.nchannels.underived", 32, "channels",
       "where the search is not derived (RCCL on MI300X, which matches hand-made models in ROCm/rccl "
       "src/graph/rome_models.cc; one GPU per node; Blackwell; several nodes without NVSwitch): the earlier "
       "default, Azure's NCCL_MIN_NCHANNELS=32"},
      // The benchmark's launch: one kernel launch per GPU a thread drives, per iteration.
      {"sim.launch.host_per_gpu_us", 4.555, "us",
       "fitted: median 36.44 us / 8 GPUs of the 15 rows 8 B-128 KB of an nccl-tests -g 8 log (H100, NCCL 2.26.2, "
       "tests/data/nccl-tests/h100_8gpu_1node_allreduce_ring.log), sizes where the GPUs finish sooner"},
      {"sim.net.proxy_us", 1.0, "us", "NCCL v2.28.9 src/graph/tuning.cc getNetOverhead (Intel CPU: 1 us)"},
      // The profile boundary of the cluster's transport (sim/src/net/transports.cpp holds its constants).
      {"sim.net.message_us", -1.0, "us", "-1: the cluster transport's own per-message cost; calibrate fits it on one log of that cluster"},
      {"sim.net.transport", -1.0, "kind", "-1: any; calibrate records its cluster's transport (ib 0, roce 1, efa 2, tcpxo 3, tcpx 4, socket 5)"},
  };
}

// msccl-executor-nccl's runtime, measured on the published ND H100 v5 MSCCL column
// (tests/data/ndv5_msccl_vs_nccl_fp16.csv), one row each; MSCCL fidelity holds the other rows out.
std::vector<Param> msccl_params() {
  return {
      {"sim.msccl.base_us", 5.14, "us",
       "ND H100 v5 MSCCL allgather 1 KB row (ag-1k-512k: one LL send per peer): 5.65 us minus one NVSwitch "
       "round (2 x link.nvswitch.latency 0.2557 us)"},
      {"sim.msccl.dep_us", 1.8, "us",
       "ND H100 v5 MSCCL allreduce 1 KB row (ap-1pass: receive, one flag handoff, local reduce): 7.50 us is met "
       "with the base above at 1.80 us per handoff"},
      {"sim.msccl.line_forward_us", 0.45, "us",
       "ND H100 v5 MSCCL allreduce 512 KB row (r48ll: LL ring, 12 forwarding hops per chunk): 19.14 us is met "
       "at 0.45 us per forwarding step"},
  };
}

// msccl-executor-nccl's threadblocks: the wire bytes/s one of them moves in LL128, fitted on sm90
// (tests/sim/msccl_fidelity_test.cpp: fitted rows against held-out ones). No other generation has a
// published MSCCL measurement, so they keep sim.tb_bw.LL128 (as LL and Simple everywhere).
std::vector<Param> executor_params() {
  return {
      {"sim.msccl.tb_bw.LL128.sm90", kMscclLL128TbBwSm90, "GB/s",
       "fitted: least median |error| on the published ND H100 v5 MSCCL allreduce rows of r48ll128 (2-16 MB; ag-2m "
       "is held out)"},
  };
}

// RCCL's MSCCL kernel, for every MSCCL file on AMD GPUs: its bundled all-pairs allreduce on MI300X
// (sim/src/nccl/rccl_msccl.cpp) and ccforge's own files (sim/src/costs.cpp msccl_protocol_costs). The
// two rates were fitted on the one public MI300X log (tests/data/nccl-tests/mi300x_8gpu_1node_allreduce.log,
// out-of-place rows); the rows each constant was not fitted on are held out (tests/validate).
std::vector<Param> rccl_params() {
  return {
      {"sim.rccl.msccl.base_us", kRcclMscclBaseUs, "us",
       "fitted: median of the MI300X log's LL rows 1-64 KB (allreduce-allpairs-8n-ll-32tb) minus their simulated data "
       "movement and its two cross-threadblock handoffs (2 x sim.msccl.dep_us)"},
      {"sim.rccl.msccl.tb_bw.Simple.cdna3", kRcclMscclSimpleTbBw, "GB/s",
       "fitted: payload one MSCCL Simple threadblock moves, from the slope of the MI300X log's rows 4-16 MB "
       "(allreduce-allpairs-8n-simple, 8 threadblocks per xGMI link); 512 KB-2 MB are held out"},
      {"sim.rccl.proto.LL128.wire_efficiency", 56.0 / 64.0, "ratio",
       "RCCL's LL128 line = 64 B, 7 of its 8 uint64 data, 1 flag (ROCm/rccl @0cbce2a7 src/include/device.h "
       "NCCL_LL128_LINESIZE 64, NCCL_LL128_DATAELEMS = LINEELEMS - 1), in every MSCCL file RCCL runs"},
  };
}

}  // namespace

ParamTable default_sim_params() {
  ParamTable table;
  for (auto* group : {&protocol_params, &threadblock_params, &gpu_issue_params, &hardware_params, &msccl_params, &executor_params, &rccl_params}) {
    for (auto& p : (*group)()) table.add(std::move(p));
  }
  return table;
}

}  // namespace ccforge::sim
