// The protocol- and architecture-dependent costs the lowerings attach to tasks, read once from the
// typed constants so the hot loops see plain numbers.
#pragma once

#include <vector>

#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/sim/constants.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::sim {

struct ProtocolCosts {
  double wire_efficiency = 1.0;  // payload / wire bytes
  double tb_bytes_per_s = 0.0;   // wire bytes/s one threadblock sustains (payload cap / efficiency)
  double gpu_bytes_per_s = 0.0;  // wire bytes/s a whole GPU issues in this protocol; 0 = no such cap
  SimTime sync_nvlink, sync_pcie, sync_net;  // per-step protocol cost beyond the route latency
  SimTime base;                  // per-collective launch and teardown
  SimTime net_proxy;             // host proxy's cost per network transfer
  SimTime net_message;           // the transport's own cost per network message (net/transports.cpp)
};

ProtocolCosts protocol_costs(const SimConstants& params, ir::Protocol proto, topo::GpuArch arch);
// The same on `topo`'s GPUs and inter-node transport.
ProtocolCosts protocol_costs(const SimConstants& params, ir::Protocol proto, const topo::Topology& topo);

// The MSCCL kernel that runs a file on this topology's GPUs: RCCL's on AMD, msccl-executor-nccl's on
// NVIDIA (ir::runtime_for_vendor). The two kernels have their own measured costs.
ir::Runtime msccl_runtime(const topo::Topology& topo);

// Costs of an MSCCL kernel's own runtime, the same for every protocol (one kernel, one flag scheme).
struct MscclRuntimeCosts {
  SimTime base;         // per call: the MSCCL kernel's launch and completion
  SimTime dep_handoff;  // cross-threadblock dependency: publisher's barrier, fence and flag store until the waiter sees it
  SimTime line_forward; // LL/LL128 forwarding step: from a line landing to the same thread storing it to the next peer
};
// msccl-executor-nccl: SimConstants::msccl; RCCL: its own per-call base (SimConstants::rccl), the handoffs as
// msccl-executor-nccl's (RCCL's kernel is its port; no RCCL measurement isolates them).
MscclRuntimeCosts msccl_runtime_costs(const SimConstants& params, ir::Runtime runtime);

// The protocol costs an MSCCL kernel's primitives run at, protocol_costs unless measured for that
// kernel: msccl-executor-nccl's threadblock moves at most ArchConstants::msccl_ll128_tb_bw_gbs wire bytes/s
// in LL128 (sm90); RCCL's moves ArchConstants::rccl_msccl_tb_bw_gbs payload bytes/s where fitted (Simple on
// cdna3) and its lines carry RcclMscclConstants::wire_efficiency. One description for both the
// MSCCL lowering and the RCCL baseline's bundled all-pairs lowering.
ProtocolCosts msccl_protocol_costs(const SimConstants& params, ir::Protocol proto, const topo::Topology& topo, ir::Runtime runtime);

// Payload bytes/s a GPU's sends to all its NVLink peers at once reach together (alltoall's all-to-all
// traffic through the NVSwitch): sim.p2p.nvlink_share of its NVLink rate; 0 where the arch has none.
double alltoall_nvlink_cap(const SimConstants& params, const topo::Topology& topo);

// LL and LL128 receivers poll a flag per line and pass each line on as it lands; Simple hands over
// whole buffer slots.
bool forwards_per_line(ir::Protocol proto);

// Per-step protocol cost for a route of this class (NVLink, PCIe/CPU, or network).
SimTime sync_cost(const ProtocolCosts& costs, topo::PathClass cls);

// A point-to-point transfer's alpha on `route`: its latency, the protocol's per-step sync (`with_sync`
// false: a later slice of a pipelined step, whose handshake the first slice paid) and, across the
// network, the host proxy and the transport's per-message cost.
SimTime transfer_alpha(const ProtocolCosts& costs, const topo::Route& route, bool with_sync = true);

// Per topology link, the bytes/s its flows share: its rate times link_efficiency for the GPUs' arch.
std::vector<double> link_capacities(const topo::Topology& topo, const SimConstants& params);

// Time to reduce `bytes` locally: two reads and one write through HBM.
SimTime local_reduce_time(const SimConstants& params, topo::GpuArch arch, double bytes);
SimTime local_copy_time(const SimConstants& params, topo::GpuArch arch, double bytes);
// The same with the HBM bandwidth looked up once, for hot loops.
Bandwidth hbm_bandwidth(const SimConstants& params, topo::GpuArch arch);
inline SimTime local_reduce_time(Bandwidth hbm, double bytes) { return transfer_time(3.0 * bytes, hbm); }
inline SimTime local_copy_time(Bandwidth hbm, double bytes) { return transfer_time(2.0 * bytes, hbm); }

}  // namespace ccforge::sim
