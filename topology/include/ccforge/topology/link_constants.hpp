// The topology's link model as typed values. Each constant is declared once (profile name "link.*",
// unit, range, default, source: topology/src/link_params.cpp) and bound to a field here when a topology
// is loaded (after profile overrides); the builders and other parts read the fields, so no parameter
// name is spelt past that boundary.
#pragma once

#include <array>
#include <cstddef>

#include "ccforge/topology/gpu_models.hpp"

namespace ccforge::topo {

// The CPU families whose socket interconnect NCCL rates apart (src/graph/topo.h *_QPI_BW, AMD_BW, ...).
enum class CpuFamily { IntelBdw, IntelSkl, IntelSrp, IntelErp, Amd, Zhaoxin, Arm, Power };

inline constexpr int kMinPcieGen = 1, kMaxPcieGen = 6;

struct LinkConstants {
  std::array<double, 5> peer_link_gbs{};  // NVLink/xGMI per link and direction, by GpuArch
  std::array<double, kMaxPcieGen> pcie_lane_gbs{};  // per lane and direction, by PCIe generation 1..6
  std::array<double, 8> cpu_gbs{};        // between two sockets, per direction, by CpuFamily
  // Per hop (alpha), microseconds.
  double nvlink_latency_us = 0, nvswitch_latency_us = 0, xgmi_latency_us = 0, pcie_latency_us = 0, cpu_latency_us = 0,
         ib_latency_us = 0, netswitch_latency_us = 0;

  double peer_link(GpuArch arch) const { return peer_link_gbs[static_cast<std::size_t>(arch)]; }
  double pcie_lane(int gen) const { return pcie_lane_gbs.at(static_cast<std::size_t>(gen - kMinPcieGen)); }
  double cpu(CpuFamily family) const { return cpu_gbs[static_cast<std::size_t>(family)]; }
};

}  // namespace ccforge::topo
