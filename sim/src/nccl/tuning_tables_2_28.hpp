// NCCL 2.28 (ncclTunerConstantsDefaults and the NVLS efficiency model). See tuning_tables.hpp for the layout.
#pragma once

#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {

// NCCL 2.28.9 (v2.28.9-1 src/graph/tuning.cc ncclTunerConstantsDefaults and nvlsEfficiency; topo.h
// SMxx_NVLINK_BW). Against 2.27.7: NVLSTree NET hwLat 20.9 (was 14), PAT's 8 us base and 4/4/14 us hwLat
// rows in the tables, Blackwell rows measured rather than doubled, perChMaxNVLSTreeBws, nvlsEfficiency
// and the NVLS model of NvlsModel::kEfficiency.
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
    NvlsModel::kEfficiency,
    0.75,  // ncclTopoTuneModel: PAT busBw x 0.75
    // src/include/device.h MAXCHANNELS 64; src/graph/search.cc sm90SpeedArrayIntra and
    // sm90SpeedArrayInter; topo.h AMD_BW; src/include/device.h NCCL_MAX_NVLS_ARITY 32.
    {64,
     {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3},
     {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12},
     true,
     32},
    // src/enqueue.cc NVLSTree chunk: nvlsChunkSize 128 KiB, 64 KiB from 4 nodes.
    128.0 * 1024,
    64.0 * 1024,
    false,
};

}  // namespace ccforge::sim::nccl
