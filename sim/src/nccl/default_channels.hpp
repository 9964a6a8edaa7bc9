// NCCL's channel count when the run sets neither NCCL_MIN_NCHANNELS nor NCCL_MAX_NCHANNELS (nor
// minCTAs/maxCTAs): what its topology search finds on one node, doubled as ncclTopoPostset doubles it.
#pragma once

#include "ccforge/topology/topology.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {

// Derived for NVIDIA GPUs up to Hopper: one node whose GPUs meet in an NVSwitch, are joined by direct
// NVLinks, or talk over PCIe, or several NVSwitch nodes with NICs (see default_channels.cpp). Computed
// once per topology and version (memoized). Throws DiagError for what is not derived: AMD GPUs (RCCL),
// Blackwell, PCIe paths through one CPU (PHB), several nodes without NVSwitch.
int default_nchannels(const topo::Topology& topo, const TuningConstants& tables);

// Whether the above is derived for `topo` (it throws where not).
bool nccl_search_derived(const topo::Topology& topo);

// What the search found: the channel count above, and the ring graph as ncclTopoTuneModel reads it
// (graphs[RING]->nChannels after the search's own doubling, and its per-channel speed bwIntra = bwInter).
// On one NVSwitch node of sm90 GPUs also the NVLS graph (src/graph/search.cc pattern NVLS): one channel
// per GPU (each GPU pulls from the switch as a head), at nvls_speed each; none elsewhere (0).
struct SearchedGraphs {
  int nchannels = 0;
  int ring_channels = 0;
  double ring_speed = 0.0;
  int nvls_channels = 0;
  double nvls_speed = 0.0;
};
SearchedGraphs searched_graphs(const topo::Topology& topo, const TuningConstants& tables);

}  // namespace ccforge::sim::nccl
