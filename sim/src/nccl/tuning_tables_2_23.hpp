// NCCL 2.23 to 2.27 (PAT, and the multi-node ring terms of today's NCCL, before 2.28's NVLS efficiency
// model). Each table is its predecessor's with the changes listed. See tuning_tables.hpp for the layout.
#pragma once

#include "tuning_tables_2_18.hpp"

namespace ccforge::sim::nccl {

// NCCL 2.23.4 (v2.23.4-1 src/graph/tuning.cc): 2.21.5 with these changes.
inline constexpr TuningConstants kNccl2_23_4 = [] {
  TuningConstants t = kNccl2_21_5;
  // baseLat Tree/Simple 8.4; hwLat Tree/Simple back to 4 (NVLink, PCI) and 14 us (NET).
  t.base_lat[kTree][kSimple] = 8.4;
  t.hw_lat[kHwNvlink][kTree][kSimple] = t.hw_lat[kHwPci][kTree][kSimple] = 4.0;
  t.hw_lat[kHwNet][kTree][kSimple] = 14.0;
  // PAT (ncclPatEnable: one GPU per node, Simple): busBw x .85, latency 8 us (written into the formula,
  // kept here as its base) + log2(nNodes) x interLat / 3.5 + nRanks x 2.8 us.
  t.base_lat[kPat][kSimple] = 8.0;
  t.pat_bw_factor = 0.85;
  // nInterSteps 2(nNodes-1), no x0.7 LL128 ring discount at ppn < 2, Tree's NET latency at ppn 1.
  t.legacy_multi_node = false;
  // "Convert bus BW to algorithm BW" now skips every non-ring allgather/reducescatter.
  t.gather_busbw_unconverted = true;
  return t;
}();

// NCCL 2.26.6 (v2.26.6-1): 2.23.4 with a Blackwell row (tuning.cc: twice Hopper's llMaxBws and
// perChMax*Bws; topo.h SM100_NVLINK_BW 40.0), PAT busBw x .75 instead of .85 and 64 channels at most.
inline constexpr TuningConstants kNccl2_26_6 = [] {
  TuningConstants t = kNccl2_23_4;
  for (int col = 0; col < 3; ++col) {
    t.ll_max_bw[3][col] = 2 * t.ll_max_bw[2][col];
    t.per_ch_max_ring_ll128_bw[3][col] = 2 * t.per_ch_max_ring_ll128_bw[2][col];
    t.per_ch_max_tree_ll128_bw[3][col] = 2 * t.per_ch_max_tree_ll128_bw[2][col];
    t.per_ch_max_tree_bw[3][col] = 2 * t.per_ch_max_tree_bw[2][col];
  }
  t.nvlink_bw_per_link[3] = 40.0;
  t.pat_bw_factor = 0.75;
  t.channel_search.max_channels = 64;  // src/include/device.h MAXCHANNELS 64 (was 32 up to 2.23)
  return t;
}();

// NCCL 2.27.7 (v2.27.7-1): 2.26.6 with topo.h SM100_NVLINK_BW 40.1 and, in ncclTopoTuneModel, NVLS
// allgather/reducescatter bw = min(bwIntra x (ppn-1)/ppn, bwInter x 0.9).
inline constexpr TuningConstants kNccl2_27_7 = [] {
  TuningConstants t = kNccl2_26_6;
  t.nvlink_bw_per_link[3] = 40.1;
  t.nvls_model = NvlsModel::kGatherCapped;
  return t;
}();

}  // namespace ccforge::sim::nccl
