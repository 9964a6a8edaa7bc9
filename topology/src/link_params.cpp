// The link model: one ParamTable entry per constant, each with its unit and source. Physical
// (datasheet/spec) values build the graph; NCCL's own per-link model values belong to NCCL's tuning
// model (sim/src/nccl/tuning_tables.hpp), not to the topology.
#include "ccforge/topology/topology.hpp"

namespace ccforge::topo {

ParamTable default_link_params() {
  constexpr const char* kGBps = "GB/s";
  constexpr const char* kUs = "us";
  return ParamTable({
      // NVLink per link and direction: datasheet total (bidirectional) / links / 2.
      {"link.nvlink.sm70.bw_per_link", 25.0, kGBps, "NVIDIA Tesla V100 datasheet: NVLink2 300 GB/s over 6 links"},
      {"link.nvlink.sm80.bw_per_link", 25.0, kGBps, "NVIDIA A100 datasheet: NVLink3 600 GB/s over 12 links"},
      {"link.nvlink.sm90.bw_per_link", 25.0, kGBps, "NVIDIA H100 SXM datasheet: NVLink4 900 GB/s over 18 links"},
      {"link.nvlink.sm100.bw_per_link", 50.0, kGBps, "NVIDIA DGX B200 datasheet: NVLink5 1.8 TB/s over 18 links"},
      {"link.xgmi.bw_per_link", 64.0, kGBps,
       "AMD Instinct MI300X datasheet: 128 GB/s peak per Infinity Fabric link, bidirectional"},
      // PCIe per lane and direction: GT/s x encoding efficiency / 8 bits.
      {"link.pcie.gen1.bw_per_lane", 0.25, kGBps, "PCIe 1.0 spec: 2.5 GT/s, 8b/10b"},
      {"link.pcie.gen2.bw_per_lane", 0.5, kGBps, "PCIe 2.0 spec: 5 GT/s, 8b/10b"},
      {"link.pcie.gen3.bw_per_lane", 8.0 * 128 / 130 / 8, kGBps, "PCIe 3.0 spec: 8 GT/s, 128b/130b"},
      {"link.pcie.gen4.bw_per_lane", 16.0 * 128 / 130 / 8, kGBps, "PCIe 4.0 spec: 16 GT/s, 128b/130b"},
      {"link.pcie.gen5.bw_per_lane", 32.0 * 128 / 130 / 8, kGBps, "PCIe 5.0 spec: 32 GT/s, 128b/130b"},
      {"link.pcie.gen6.bw_per_lane", 64.0 * 236 / 256 / 8, kGBps,
       "PCIe 6.0 spec: 64 GT/s PAM4, 256-byte FLIT carrying 236 TLP bytes"},
      // CPU-to-CPU interconnect per direction: NCCL's model values, the only sourced per-platform numbers.
      {"link.cpu.intel_bdw.bw", 6.0, kGBps, "NCCL src/graph/topo.h BDW_QPI_BW"},
      {"link.cpu.intel_skl.bw", 10.0, kGBps, "NCCL src/graph/topo.h SKL_QPI_BW"},
      {"link.cpu.intel_srp.bw", 22.0, kGBps, "NCCL src/graph/topo.h SRP_QPI_BW"},
      {"link.cpu.intel_erp.bw", 40.0, kGBps, "NCCL src/graph/topo.h ERP_QPI_BW (2.28+)"},
      {"link.cpu.amd.bw", 16.0, kGBps, "NCCL src/graph/topo.h AMD_BW"},
      {"link.cpu.zhaoxin.bw", 6.0, kGBps, "NCCL src/graph/topo.h ZPI_BW"},
      {"link.cpu.arm.bw", 6.0, kGBps, "NCCL src/graph/topo.h ARM_BW"},
      {"link.cpu.power.bw", 32.0, kGBps, "NCCL src/graph/topo.h P9_BW"},
      // Hop latencies (alpha). NCCL gives per-step latencies (tuning.cc hwLatencies, Ring LL); a step
      // through a switch is two hops, so switched hops carry half of it.
      {"link.nvlink.latency", 0.6, kUs, "NCCL src/graph/tuning.cc hwLatencies[NVLINK][Ring][LL]"},
      // NCCL's 0.6 us/step is a conservative tuning figure; measured H100 NVSwitch steps are shorter.
      {"link.nvswitch.latency", 0.2557, kUs,
       "measured: NCCL 2.18.3 ring-LL 1 KB allreduce 13.12 us (14 steps) and allgather 9.54 us (7 steps) on "
       "8x H100 NVSwitch (Azure/msccl docs/performance-nd-h100-v5.md): (13.12-9.54)/7 = 0.511 us/step, 2 hops; "
       "fitted on those 2 points only, the other 40 are held out (tests/sim/fidelity_test.cpp)"},
      {"link.xgmi.latency", 0.6, kUs, "as link.nvlink.latency: RCCL types xGMI as LINK_NVL and keeps NCCL's table"},
      {"link.pcie.latency", 0.5, kUs, "half of NCCL hwLatencies[PCI][Ring][LL] = 1.0 (GPU-switch-GPU step)"},
      {"link.cpu.latency", 0.5, kUs, "as link.pcie.latency: NCCL has no separate SYS latency, it uses hwLat[PCI]"},
      {"link.ib.latency", 1.35, kUs, "half of NCCL hwLatencies[NET][Ring][LL] = 2.7 (NIC-switch-NIC step)"},
      {"link.netswitch.latency", 0.13, kUs, "NVIDIA Quantum QM8700 datasheet: 130 ns port-to-port"},
  });
}

}  // namespace ccforge::topo
