// What NCCL's tuner sees of a topology, and its per-(algorithm, protocol) time estimate.
#pragma once

#include <optional>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "rccl_tuning.hpp"
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
  // The net plugin's ncclNetProperties_t.latency (graph->latencyInter), added to hwLat[NET] (net/transports.cpp).
  double net_latency_us = 0.0;
  bool nvswitch = false;       // GPUs meet in an NVSwitch
  // NVLS heads: NICs per node, the fewest any node has (NVLSTree sends each head's share through one NIC;
  // NCCL connects min over ranks of nvlsHeadNum, v2.26.2-1 src/graph/connect.cc ncclTopoPostset).
  int nvls_heads = 0;
  // One NVSwitch node where NCCL's search is derived: the NVLS graph's channels and channels x speed
  // (SearchedGraphs); 0 elsewhere, where the NVLS terms fall back to the node's NVLink sum and
  // NCCL_NVLS_NCHANNELS.
  int nvls_graph_channels = 0;
  double nvls_graph_bw_gbs = 0.0;
  int nchannels = 1;           // ring/tree channels after NCCL_MIN/MAX_NCHANNELS and _CTAS
  bool nvls_enabled = true;    // NCCL_NVLS_ENABLE
  bool pat_enabled = true;     // NCCL_PAT_ENABLE
  // LL128 kernels exist: not on RCCL's CDNA3 (ROCm/rccl @0cbce2a src/device/generate.py compiles LL128
  // only under __gfx90a__, and src/graph/tuning.cc enables it by default only on gfx90a).
  bool ll128_built = true;
  // RCCL's own model where RCCL matches the node by hand (one MI300X node, or several with a NIC per
  // GPU); nullptr: NCCL's tables.
  const RcclTuning* rccl = nullptr;
};

// Local index of the first GPU behind each distinct NIC of node `node`, in local-rank order: the NICs a
// node searches channels on, and its NVLS heads (one per NIC, NCCL v2.26.2-1 src/graph/search.cc).
std::vector<int> nic_heads(const topo::Topology& topo, int node);

// The NVLS heads every node connects: node 0's first min-over-nodes heads (connect.cc uses each node's
// first minHeadNum heads; ccforge's multi-node topologies give every node the same local order).
std::vector<int> nvls_connected_heads(const topo::Topology& topo);

// Throws DiagError when sim.nccl.version names a version whose tables ccforge does not carry.
NcclView make_view(const topo::Topology& topo, const SimParams& params);

// NCCL's estimate in microseconds, or nullopt when NCCL would not run (algo, proto) for this call.
std::optional<double> model_time_us(const NcclView& view, ir::Collective coll, int algo, int proto, double bytes);

// Channels NCCL actually uses for a call (thins them for small sizes).
int channels_for_call(const NcclView& view, int algo, int proto, double bytes);

}  // namespace ccforge::sim::nccl
