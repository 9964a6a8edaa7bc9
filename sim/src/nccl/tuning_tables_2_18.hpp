// NCCL 2.18 and its successors up to 2.22 (the model before PAT). See tuning_tables.hpp for the layout.
#pragma once

#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {

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
    NvlsModel::kLinks2_18,
    0.0,
    // v2.18.3-1 src/include/device.h MAXCHANNELS 32; src/graph/search.cc sm90SpeedArrayIntra and
    // sm90SpeedArrayInter; topo.h has no AMD_BW yet (ncclTopoGetInterCpuBw leaves AMD sockets at LOC_BW);
    // src/include/devcomm.h NCCL_MAX_NVLS_ARITY 8.
    {32,
     {60, 40, 30, 24, 20, 15, 12, 6, 3},
     {48, 45, 42, 40, 30, 24, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12},
     false,
     8},
    // v2.18.3-1 src/enqueue.cc: NVLSTree starts from the Simple step (512 KiB) at any node count.
    512.0 * 1024,
    512.0 * 1024,
    true,
};

// NCCL 2.21.5 (v2.21.5-1; v2.22.3-1's tuning.cc, topo.h and enqueue.cc thinning carry the same numbers
// and formulas, so 2.22 uses this table too): 2.18.3 with these changes (v2.21.5-1 src/graph/tuning.cc
// unless said otherwise).
inline constexpr TuningConstants kNccl2_21_5 = [] {
  TuningConstants t = kNccl2_18_3;
  // baseLat: CollNet, NVLS and NVLSTree rows become 0 (NVLS's whole latency moves into hwLat).
  for (int a = 2; a < kNumAlgos; ++a) t.base_lat[a][kLL] = t.base_lat[a][kLL128] = t.base_lat[a][kSimple] = 0.0;
  // hwLat: Tree/Simple 28 us on every link kind; NVLS and NVLSTree 25 us over NVLink, NVLSTree 14 us NET.
  for (int hw = kHwNvlink; hw <= kHwNet; ++hw) t.hw_lat[hw][kTree][kSimple] = 28.0;
  t.hw_lat[kHwNvlink][kNvls][kSimple] = t.hw_lat[kHwNvlink][kNvlsTree][kSimple] = 25.0;
  t.hw_lat[kHwNet][kNvlsTree][kSimple] = 14.0;
  // hwLat CollNetDirect/Chain (not modelled: no SHARP fabric) 3.7/2.8 (NVLink, PCI), 31/30 (NET).
  t.hw_lat[kHwNvlink][2][kSimple] = t.hw_lat[kHwPci][2][kSimple] = 3.7;
  t.hw_lat[kHwNvlink][3][kSimple] = t.hw_lat[kHwPci][3][kSimple] = 2.8;
  t.hw_lat[kHwNet][2][kSimple] = 31.0;
  t.hw_lat[kHwNet][3][kSimple] = 30.0;
  // llMaxBws Hopper row {141, 45, 35} (sm100 repeats it: the index still caps at Hopper).
  for (int arch = 2; arch <= 3; ++arch) {
    t.ll_max_bw[arch][0] = 141.0;
    t.ll_max_bw[arch][1] = 45.0;
    t.ll_max_bw[arch][2] = 35.0;
  }
  // src/graph/topo.h SM90_NVLINK_BW 20.6 (no SM100 entry yet: Blackwell counts as sm90).
  t.nvlink_bw_per_link[2] = t.nvlink_bw_per_link[3] = 20.6;
  // Ring LL busBw x .5 for every collective; NVLS for allgather/reducescatter on one node (2.19+).
  t.ring_ll_by_coll = false;
  t.nvls_all_gather = true;
  t.nvls_model = NvlsModel::kFiveSixths;
  // src/graph/search.cc sm90SpeedArrayIntra gains 50 (2.19) and 11 GB/s (2.21), sm90SpeedArrayInter 22
  // GB/s (the same from v2.21.5-1 to v2.28.9-1); topo.h AMD_BW 16 GB/s between AMD sockets (2.19+).
  // MAXCHANNELS stays 32; src/include/device.h NCCL_MAX_NVLS_ARITY 32 (8 up to v2.20.5-1).
  t.channel_search = {32,
                      {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3},
                      {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12},
                      true,
                      32};
  // src/enqueue.cc NVLSTree chunk: comm->nvlsChunkSize (NCCL_NVLS_CHUNKSIZE, 128 KiB), 64 KiB from 4 nodes
  // (NCCL_NVLSTREE_MAX_CHUNKSIZE -2); the same from v2.21.5-1 to v2.28.9-1.
  t.nvls_tree_chunk = 128.0 * 1024;
  t.nvls_tree_chunk_4_nodes = 64.0 * 1024;
  t.tree_simple_chunk_by_depth = false;
  return t;
}();

}  // namespace ccforge::sim::nccl
