// NCCL's own performance-model constants, per NCCL version, used only to reproduce which algorithm,
// protocol and channel count NCCL picks. They are NCCL's estimates, not ccforge's timing model (that
// is the engine plus sim/src/params.cpp). Read from NVIDIA/nccl tags v2.18.3-1, v2.21.5-1, v2.22.3-1,
// v2.23.4-1, v2.26.6-1, v2.27.7-1 and v2.28.9-1: src/graph/tuning.cc (baseLat, hwLat, llMaxBws, perChMax*
// incl. perChMaxNVLSTreeBws, nvlsEfficiency, treeCorrectionFactor, ncclTopoTuneModel, ncclPatEnable,
// getNetOverhead), src/graph/topo.h (SMxx_NVLINK_BW), src/enqueue.cc (getAlgoInfo / topoGetAlgoInfo
// channel thinning). The tables themselves are in tuning_tables_2_18.hpp (2.18, 2.21-2.22),
// tuning_tables_2_23.hpp (2.23, 2.26, 2.27) and tuning_tables_2_28.hpp.
// Index order as NCCL (ccforge/common/nccl_numbering.h) for algorithms and protocols; architectures
// Volta 0, Ampere 1, Hopper 2, Blackwell 3.
#pragma once

#include "ccforge/common/nccl_numbering.h"
#include "ccforge/sim/constants.hpp"

namespace ccforge::sim::nccl {

inline constexpr int kNumAlgos = CCF_NCCL_NUM_ALGORITHMS;
inline constexpr int kNumProtos = CCF_NCCL_NUM_PROTOCOLS;
inline constexpr int kTree = CCF_NCCL_ALGO_TREE, kRing = CCF_NCCL_ALGO_RING, kNvls = CCF_NCCL_ALGO_NVLS,
                     kNvlsTree = CCF_NCCL_ALGO_NVLS_TREE, kPat = CCF_NCCL_ALGO_PAT;
inline constexpr int kLL = CCF_NCCL_PROTO_LL, kLL128 = CCF_NCCL_PROTO_LL128, kSimple = CCF_NCCL_PROTO_SIMPLE;
inline constexpr int kHwNvlink = 0, kHwPci = 1, kHwNet = 2;

// An architecture's row in the per-architecture tables (NCCL's compCapIndex: Volta 0, Ampere 1, Hopper 2,
// Blackwell 3); CDNA3 takes Ampere's where RCCL's own model (rccl_tuning.hpp) does not apply.
constexpr int arch_row(topo::GpuArch arch) {
  switch (arch) {
    case topo::GpuArch::Volta: return 0;
    case topo::GpuArch::Hopper: return 2;
    case topo::GpuArch::Blackwell: return 3;
    case topo::GpuArch::Ampere:
    case topo::GpuArch::Cdna3: break;
  }
  return 1;
}

// How a version turns the NVLS / NVLSTree graphs into bus bandwidth, algorithm bandwidth and latency.
enum class NvlsModel {
  // 2.18: NVLS busBw = nChannels x bwIntra, algBw x 5/6; NVLSTree busBw = heads x NIC speed, algBw x
  // 0.7 nNodes/(2(nNodes-1)), latency base + 2(nNodes-1) x NET.
  kLinks2_18,
  // 2.19-2.26: NVLS bw = min(bwIntra, bwInter) (one node: bwIntra), NVLSTree bw = min(bwIntra, bwInter,
  // halved from 3 nodes), both algBw x 5/6; NVLSTree latency intra + 2 log2(nNodes) x NET.
  kFiveSixths,
  // 2.27: as kFiveSixths, but NVLS allgather/reducescatter bw = min(bwIntra (ppn-1)/ppn, 0.9 bwInter).
  kGatherCapped,
  // 2.28: bwIntra x nvlsEfficiency x (nCh-1)/nCh, x2 for allreduce, x(ppn-1)/ppn otherwise; NVLSTree also
  // capped by the NIC (x2 on 2 nodes) and perChMaxNVLSTreeBws; algBw x nRanks/nSteps like ring.
  kEfficiency,
};

// src/graph/search.cc speedArrayIntra and speedArrayInter: the GB/s per channel the channel search tries
// for GPUs before sm90, within a node and across nodes (the same at every carried tag).
inline constexpr double kSpeedArrayIntra[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
inline constexpr double kSpeedArrayInter[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};

// What ncclTopoCompute's channel search (src/graph/search.cc) and the channel limits need per version;
// used only by default_nchannels (default_channels.hpp).
struct ChannelSearch {
  int max_channels;               // MAXCHANNELS (src/include/device.h)
  double sm90_intra_speeds[12];   // sm90SpeedArrayIntra, GB/s per channel, descending, 0 ends it
  double sm90_inter_speeds[18];   // sm90SpeedArrayInter (several nodes), likewise
  bool amd_inter_cpu_limited;     // topo.h AMD_BW caps the link between AMD sockets (else LOC_BW)
  int max_nvls_arity;             // NCCL_MAX_NVLS_ARITY: the most channels (heads) an NVLS graph has
};

struct TuningConstants {
  double base_lat[kNumAlgos][kNumProtos];
  double hw_lat[3][kNumAlgos][kNumProtos];  // [NVLINK | PCI | NET]
  double ll_max_bw[4][3];                   // [arch][1 node, 2 nodes, 4+ nodes]
  double per_ch_max_ring_ll128_bw[4][3];
  double per_ch_max_tree_ll128_bw[4][3];
  double per_ch_max_tree_bw[4][3];
  double per_ch_max_nvls_tree_bw[4][3];  // 0 = no cap (2.18 has none)
  double nvls_efficiency[4];
  double nvlink_bw_per_link[4];  // SM70/80/90/100_NVLINK_BW, GB/s
  bool ring_ll_by_coll;          // 2.18: LL busBw x1/4 (allreduce, reduce, multi-node) or x1/3; 2.19+: x1/2
  bool nvls_all_gather;          // NVLS also for allgather and reducescatter (2.19+)
  // 2.18-2.22 ring terms across nodes: allreduce counts 2 nNodes network steps, LL128 busBw x0.7 with one
  // GPU per node, and the network latency is the algorithm's own even with one GPU per node; 2.23+:
  // 2(nNodes-1) steps, x0.92, and Tree's network latency when ppn is 1 (every step exposed).
  bool legacy_multi_node;
  // 2.23+: bus bandwidth of non-ring allgather/reducescatter (NVLS, PAT) is not converted to algorithm
  // bandwidth (ratio 1); 2.19-2.22 convert NVLS allgather by 5/6 like allreduce.
  bool gather_busbw_unconverted;
  NvlsModel nvls_model;
  double pat_bw_factor;          // PAT busBw discount; 0 = no PAT (before 2.23)
  ChannelSearch channel_search;
  // NVLSTree's largest chunk (src/enqueue.cc, NCCL_ALGO_NVLS_TREE), bytes; and from 4 nodes on.
  double nvls_tree_chunk;
  double nvls_tree_chunk_4_nodes;
  // Tree Simple halves its chunk (from the 512 KiB step) until each channel has tree-depth x 8, x 4, x 1
  // chunks, down to 128, 64, 32 KiB (src/enqueue.cc computeColl, v2.18.3-1 and v2.19.3-1; gone from
  // v2.20.3-1 on, where only tree LL128 adapts its chunk).
  bool tree_simple_chunk_by_depth;
};

// treeCorrectionFactor[proto][log2(bytes >> 6)], 64 B .. 256 MB (the same at every carried tag).
inline constexpr int kTreeCorrectionSizes = 23;
inline constexpr double kTreeCorrection[kNumProtos][kTreeCorrectionSizes] = {
    {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// Channel thinning for small calls (getAlgoInfo): threads per channel and bytes per thread below
// which a channel is dropped (NCCL_*_THREAD_THRESHOLD; Ring LL is x nRanks).
inline constexpr int kMaxThreads[kNumProtos] = {512, 640, 512};
inline constexpr int kThreadThreshold[kNumProtos] = {8, 8, 64};

// NVLS channels (src/transport/nvls.cc NCCL_NVLS_NCHANNELS default 16).
inline constexpr int kNvlsChannels = 16;

// getNetOverhead (both versions): the proxy's per-step post cost NCCL's ring model charges, 1 us on
// Intel and non-x86 hosts (2 us on AMD; ccforge's topologies do not record the CPU vendor), x3 for Simple.
inline constexpr double kNetOverheadUs = 1.0;

// PAT's linear latency term (nRanks x 2.8 us) next to log2(nNodes) x interLat / 3.5 (ncclTopoTuneModel,
// v2.23.4-1 through v2.28.9-1; the 8 us base is baseLat[PAT] in the tables).
inline constexpr double kPatPerRankUs = 2.8;
inline constexpr double kPatInterLatDivisor = 3.5;

// NCCL's log2i: floor(log2(n)) for n >= 1 (tree levels across nodes).
inline int log2_floor(int n) {
  int l = 0;
  while ((2 << l) <= n) ++l;
  return l;
}

// The tables NCCL `version` (major.minor, e.g. 2.26 for 2.26.2) ran with, or nullptr if not carried.
const TuningConstants* tuning_tables_for(NcclVersion version);
// "2.18, 2.21, ..." for messages.
inline constexpr const char* kCarriedNcclVersions = "2.18, 2.21, 2.22, 2.23, 2.26, 2.27, 2.28";

}  // namespace ccforge::sim::nccl
