// NCCL's channel count when the run sets neither NCCL_MIN_NCHANNELS nor NCCL_MAX_NCHANNELS (nor
// minCTAs/maxCTAs): what its topology search finds on one node, doubled as ncclTopoPostset doubles it.
#pragma once

#include "ccforge/topology/topology.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {

// Derived for one node of NVIDIA GPUs up to Hopper whose GPUs meet in an NVSwitch, are joined by direct
// NVLinks, or talk over PCIe (see default_channels.cpp). Throws DiagError for what is not derived:
// several nodes, AMD GPUs (RCCL), Blackwell, PCIe paths through one CPU (PHB).
int default_nchannels(const topo::Topology& topo, const TuningConstants& tables);

}  // namespace ccforge::sim::nccl
