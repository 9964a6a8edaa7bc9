// What NCCL's tuner sees of a topology, and its per-(algorithm, protocol) time estimate.
#pragma once

#include <optional>

#include "ccforge/sim/sim.hpp"
#include "tuning_tables_2_18.hpp"

namespace ccforge::sim::nccl {

struct NcclView {
  const TuningConstants* tables = &kNccl2_18_3;
  int nranks = 1;
  int nnodes = 1;
  int ppn = 1;                 // GPUs per node
  int arch = 2;                // tuning-table row: Volta 0, Ampere 1, Hopper 2, Blackwell 3
  int intra_hw = kHwNvlink;    // kHwNvlink or kHwPci
  double intra_bw_gbs = 0.0;   // per-GPU bus bandwidth inside a node, NCCL units
  double inter_bw_gbs = 0.0;   // per-GPU network bandwidth (its NIC), NCCL units
  // Several nodes: the ring graph's channels x per-channel speed, what ncclTopoTuneModel takes as ring and
  // tree bandwidth (v2.26.2-1 src/graph/tuning.cc busBw = graphs[a]->nChannels * bw); 0 where the search
  // is not derived (then min(intra, inter) per GPU).
  double net_graph_bw_gbs = 0.0;
  bool nvswitch = false;       // GPUs meet in an NVSwitch
  int nvls_heads = 0;          // NICs per node (NVLSTree sends each head's share through one NIC)
  int nchannels = 1;           // ring/tree channels after NCCL_MIN/MAX_NCHANNELS and _CTAS
  bool nvls_enabled = true;    // NCCL_NVLS_ENABLE
  bool pat_enabled = true;     // NCCL_PAT_ENABLE
};

// GB/s of one NVLink (xGMI for CDNA3) as the topology was built from datasheets; NCCL counts the same
// links at its own per-link speed (tuning tables' nvlink_bw_per_link).
double datasheet_link_gbs(const topo::Topology& topo, topo::GpuArch arch);

// Throws DiagError when sim.nccl.version names a version whose tables ccforge does not carry.
NcclView make_view(const topo::Topology& topo, const SimParams& params);

// NCCL's estimate in microseconds, or nullopt when NCCL would not run (algo, proto) for this call.
std::optional<double> model_time_us(const NcclView& view, ir::Collective coll, int algo, int proto, double bytes);

// Channels NCCL actually uses for a call (thins them for small sizes).
int channels_for_call(const NcclView& view, int algo, int proto, double bytes);

}  // namespace ccforge::sim::nccl
