// The simulator's model constants as typed values. Each is declared once (name, unit, range, default,
// source: sim/src/param_decls.cpp) and bound to a field here when the defaults are built or a profile is
// read; the cost code reads the fields, so no parameter name is spelt past that boundary.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <optional>

#include "ccforge/ir/ir.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::sim {

// Indexed by ir::Protocol (Simple, LL, LL128) and by topo::GpuArch (Volta .. Cdna3).
template <class T>
using PerProtocol = std::array<T, 3>;
template <class T>
using PerArch = std::array<T, 5>;
constexpr std::size_t index_of(ir::Protocol p) { return static_cast<std::size_t>(p); }
constexpr std::size_t index_of(topo::GpuArch a) { return static_cast<std::size_t>(a); }

// An NCCL release line, major.minor (2.26 for 2.26.2): it selects NCCL's tuning tables.
struct NcclVersion {
  int major = 2;
  int minor = 18;
  auto operator<=>(const NcclVersion&) const = default;
};
// The version as profiles and --dump-params write it, one number: 2.18 (2.3 would be 2.03).
double nccl_version_number(NcclVersion version);
// From such a number, two minor digits (range-checked by the profile reader).
NcclVersion nccl_version_of(double number);

// What a protocol costs on every GPU (sim.proto.P.*, sim.sync.P.*, sim.base.P_us).
struct ProtocolConstants {
  double wire_efficiency = 1.0;  // payload bytes per wire byte
  double sync_nvlink_us = 0.0;   // per-step handoff beyond the route's latency, by path class
  double sync_pcie_us = 0.0;
  double sync_net_us = 0.0;
  double base_us = 0.0;          // per call: kernel launch, argument load, final barrier
};

// What one GPU architecture moves (sim.*.<arch>); nullopt where the table declares nothing for it.
struct ArchConstants {
  PerProtocol<double> tb_bw_gbs{};                   // payload one threadblock (channel) moves
  PerProtocol<std::optional<double>> gpu_bw_gbs;     // payload a whole GPU can issue (LL's flagged stores)
  double hbm_gbs = 0.0;                              // local reductions and copies
  double nvlink_efficiency = 1.0;                    // achievable share of an NVLink/xGMI link's rate
  std::optional<double> p2p_nvlink_share;            // of that, what alltoall's sends to every NVLink peer reach
  std::optional<double> nvls_efficiency;             // NVSwitch in-network reduction, where NVLS exists
  std::optional<double> msccl_ll128_tb_bw_gbs;       // msccl-executor-nccl's LL128 threadblock (wire bytes)
  PerProtocol<std::optional<double>> rccl_msccl_tb_bw_gbs;  // RCCL's MSCCL threadblock (payload)
};

struct MscclConstants {
  double base_us = 0.0;          // msccl-executor-nccl's per-call base
  double dep_us = 0.0;           // cross-threadblock dependency handoff
  double line_forward_us = 0.0;  // LL/LL128 forwarding step
};

struct RcclMscclConstants {
  double base_us = 0.0;                                // RCCL's MSCCL kernel per-call base
  PerProtocol<std::optional<double>> wire_efficiency;  // RCCL's own line formats
};

struct SimConstants {
  PerProtocol<ProtocolConstants> protocol;
  PerArch<ArchConstants> arch;
  double net_efficiency = 1.0;         // achievable share of a NIC's line rate
  double nvls_base_us = 0.0;           // NVLS's whole-call latency
  double net_proxy_us = 0.0;           // host proxy per network transfer
  double net_message_us = -1.0;        // per network message; -1: the cluster transport's own
  int net_transport = -1;              // the transport a profile was calibrated on; -1: any
  double launch_host_per_gpu_us = 0.0; // one kernel launch per GPU a thread drives
  NcclVersion nccl_version;
  int nccl_nchannels = 0;              // 0: NCCL's own graph search
  int nccl_nchannels_underived = 32;   // where the search is not derived
  MscclConstants msccl;
  RcclMscclConstants rccl;

  const ProtocolConstants& of(ir::Protocol p) const { return protocol[index_of(p)]; }
  const ArchConstants& of(topo::GpuArch a) const { return arch[index_of(a)]; }
};

// The declared defaults (sim/src/param_decls.cpp).
const SimConstants& default_sim_constants();

}  // namespace ccforge::sim
