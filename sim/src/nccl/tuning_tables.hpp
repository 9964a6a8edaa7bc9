// NCCL v2.28.9's own performance-model tables (src/graph/tuning.cc ncclTunerConstantsDefaults and
// ncclTopoGetAlgoTime), used only to reproduce which algorithm, protocol and channel count NCCL picks.
// They are NCCL's estimates, not ccforge's timing model (that is the engine plus sim/src/params.cpp).
// Index order as NCCL: algorithms Tree 0, Ring 1, CollNetDirect 2, CollNetChain 3, NVLS 4, NVLSTree 5,
// PAT 6; protocols LL 0, LL128 1, Simple 2; architectures Volta 0, Ampere 1, Hopper 2, Blackwell 3.
#pragma once

namespace ccforge::sim::nccl {

inline constexpr int kNumAlgos = 7;
inline constexpr int kNumProtos = 3;
inline constexpr int kTree = 0, kRing = 1, kNvls = 4, kNvlsTree = 5, kPat = 6;
inline constexpr int kLL = 0, kLL128 = 1, kSimple = 2;

inline constexpr double kBaseLat[kNumAlgos][kNumProtos] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};

// hwLatencies[NVLINK | PCI | NET][algo][proto]
inline constexpr int kHwNvlink = 0, kHwPci = 1, kHwNet = 2;
inline constexpr double kHwLat[3][kNumAlgos][kNumProtos] = {
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};

// [arch][nodes 1, 2, 4+] (rows past 1 node are indexed by CPU vendor in NCCL; ccforge uses Intel's).
inline constexpr double kLLMaxBw[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
inline constexpr double kPerChMaxRingLL128Bw[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 34.6, 73.4}};
inline constexpr double kPerChMaxTreeLL128Bw[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
inline constexpr double kPerChMaxTreeBw[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
inline constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};

// treeCorrectionFactor[proto][log2(bytes >> 6)], 64 B .. 256 MB.
inline constexpr int kTreeCorrectionSizes = 23;
inline constexpr double kTreeCorrection[kNumProtos][kTreeCorrectionSizes] = {
    {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// Channel thinning for small calls (src/enqueue.cc topoGetAlgoInfo): threads per channel and bytes
// per thread below which a channel is dropped (NCCL_*_THREAD_THRESHOLD; Ring LL is x nRanks).
inline constexpr int kMaxThreads[kNumProtos] = {512, 640, 512};
inline constexpr int kThreadThreshold[kNumProtos] = {8, 8, 64};

// Default NVLS channel count on Hopper (src/transport/nvls.cc NCCL_NVLS_NCHANNELS default 16).
inline constexpr int kNvlsChannels = 16;

}  // namespace ccforge::sim::nccl
