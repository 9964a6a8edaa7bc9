// NCCL's own performance-model constants, per NCCL version, used only to reproduce which algorithm,
// protocol and channel count NCCL picks. They are NCCL's estimates, not ccforge's timing model (that
// is the engine plus sim/src/params.cpp). Read from NVIDIA/nccl tags v2.18.3-1 and v2.28.9-1:
// src/graph/tuning.cc (baseLat, hwLat, llMaxBws, perChMax* incl. perChMaxNVLSTreeBws, treeCorrectionFactor,
// ncclTopoTuneModel, ncclPatEnable, getNetOverhead),
// src/graph/topo.h (SM90_NVLINK_BW), src/enqueue.cc (getAlgoInfo channel thinning).
// Index order as NCCL: algorithms Tree 0, Ring 1, CollNetDirect 2, CollNetChain 3, NVLS 4, NVLSTree 5,
// PAT 6; protocols LL 0, LL128 1, Simple 2; architectures Volta 0, Ampere 1, Hopper 2, Blackwell 3.
#pragma once

namespace ccforge::sim::nccl {

inline constexpr int kNumAlgos = 7;
inline constexpr int kNumProtos = 3;
inline constexpr int kTree = 0, kRing = 1, kNvls = 4, kNvlsTree = 5, kPat = 6;
inline constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
inline constexpr int kHwNvlink = 0, kHwPci = 1, kHwNet = 2;

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
  bool ring_ll_by_coll;          // 2.18: LL busBw x1/4 (allreduce, reduce, multi-node) or x1/3; 2.28: x1/2
  bool nvls_all_gather;          // NVLS also for allgather and reducescatter (2.19+)
  // 2.18's NVLSTree model: latency linear in nodes (2(nNodes-1) x NET), algBw = busBw x 0.7 nNodes/(2(nNodes-1)),
  // ring allreduce counts 2 nNodes network steps; 2.28: log2(nNodes) latency, nRanks/nSteps, 2(nNodes-1).
  bool legacy_multi_node;
  bool pat;                      // PAT allgather/reducescatter exists (2.23+)
};

// NCCL 2.18.3 (its tables stop at Hopper; sm100 rows repeat Hopper's, as its index caps there): the
// version behind the published ND H100 v5 numbers (Azure/msccl
// docs/performance-nd-h100-v5.md), hence ccforge's default.
inline constexpr TuningConstants kNccl2_18_3 = {
    {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {6.8, 14.0, 0}, {6.8, 14.0, 0}, {0, 0, 23.0}, {0, 0, 23.0}, {0, 0, 0}},
    {{{.6, 1.25, 4}, {.6, 1.9, 3.4}, {0, 0, 8.0}, {0, 0, 4.75}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     {{1.0, 1.9, 6}, {1.0, 2.5, 5.7}, {0, 0, 8.0}, {0, 0, 8.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 10.7}, {0, 0, 14}, {0, 0, 18}, {0, 0, 19}, {0, 0, 0}}},
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {36.7, 36.7, 36.7}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {36.7, 36.7, 29.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {38.7, 41.4, 36.0}},
    {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    {0, 0, 1.0, 1.0},  // 2.18 has no NVLS efficiency factor: the NVLS ratio 5/6 carries it
    {20.0, 20.0, 20.0, 20.0},
    true,
    false,
    true,
    false,
};

// NCCL 2.28.9 (ncclTunerConstantsDefaults).
inline constexpr TuningConstants kNccl2_28_9 = {
    {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}},
    {{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
     {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
     {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}},
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 34.6, 73.4}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}},
    {0.0, 0.0, 0.85, 0.74},
    {20.0, 20.0, 20.6, 40.1},
    false,
    true,
    false,
    true,
};

// treeCorrectionFactor[proto][log2(bytes >> 6)], 64 B .. 256 MB (same in both versions).
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

// PAT's bandwidth discount (2.28.9 ncclTopoTuneModel: busBw x 0.75) and its linear latency term
// (nRanks x 2.8 us) next to log2(nNodes) x interLat / 3.5.
inline constexpr double kPatBwFactor = 0.75;
inline constexpr double kPatPerRankUs = 2.8;
inline constexpr double kPatInterLatDivisor = 3.5;

}  // namespace ccforge::sim::nccl
