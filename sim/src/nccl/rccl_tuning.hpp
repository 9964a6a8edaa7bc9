// RCCL's own tuning model on the AMD nodes it matches by hand: rome_model_79 (one node of 8 gfx942 GPUs,
// every pair on one xGMI link) and rome_model_81/84 (the same node with 8 or 16 NICs, which a job across
// nodes sees; NCCL's ncclTopoTrimSystem drops the NICs of a one-node job), all `.options` "tuning=5". Read
// at ROCm/rccl @0cbce2a src/graph/tuning.cc (ncclTopoTuneModel under __HIP_PLATFORM_AMD__, baseLat,
// tuning_model_5, ncclTopoGetAlgoTime), src/graph/rome_models.cc (options; a model graph's nChannels x
// bwIntra = nChannels x bwInter is system->totalBw) and src/graph/topo.h (GFX94X_XGMI_WIDTH).
#pragma once

#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {

struct RcclTuning {
  double base_lat[2][kNumProtos];  // [Tree | Ring][LL, LL128, Simple], us
  double xgmi_lat[2][kNumProtos];  // tuning_model_5 hwLat[NVLINK] (xGMI is LINK_NVL), us per step
  double net_lat[2][kNumProtos];   // tuning_model_5 hwLat[NET]: us per inter-node step
  double bw_ratio[2][kNumProtos];  // tuning_model_5 bwRatio[<= 2 nodes]: busBw = totalBw x ratio
  double bw_ratio_many[2][kNumProtos];  // bwRatio[more than 2 nodes]
  // treeCorrectionFactor[proto][log2(bytes >> 6)], 27 sizes (64 B .. 4 GiB, the last for larger).
  double tree_correction[kNumProtos][27];
  // ringCorrectionFactor, the same sizes: multiplies a ring's bandwidth when the job spans nodes.
  double ring_correction[kNumProtos][27];
  double bcast_reduce_ring_ll;  // ring LL busBw x1.65 for broadcast/reduce on one gfx94 node
  double xgmi_link_gbs;         // GFX94X_XGMI_WIDTH: what RCCL counts one gfx94x xGMI link at
};

inline constexpr int kRcclTree = 0, kRcclRing = 1;

inline constexpr RcclTuning kRcclTuningModel5 = {
    {{12.0, 12.0, 17.0}, {12.0, 12.0, 17.0}},
    {{0.9, 0.0, 2.3}, {0.8, 0.0, 2.1}},
    {{10.5, 0.0, 25.0}, {9.5, 0.0, 320.0}},
    {{0.06, 0.00, 0.11}, {0.08, 0.00, 1.00}},
    {{0.06, 0.00, 0.59}, {0.08, 0.00, 1.00}},
    {{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 0.6, 1.0, 0.9,
      1.0, 1.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
     {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
     {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
      0.1, 0.7, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8}},
    {{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 0.2, 1.0,
      0.4, 0.4, 0.1, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
     {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
     {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
      0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.8, 1.0, 1.0, 1.0}},
    1.65,
    48.0,
};

}  // namespace ccforge::sim::nccl
