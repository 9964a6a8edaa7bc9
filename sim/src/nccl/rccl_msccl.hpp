// RCCL's choice before its tuning model: the bundled MSCCL all-pairs allreduce on an MI300X node
// (sources in rccl_msccl.cpp).
#pragma once

#include <optional>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"

namespace ccforge::sim::nccl {

// One node of 8 CDNA3 GPUs, every pair joined by one xGMI link: what RCCL matches as rome_model_79.
bool rccl_msccl_node(const topo::Topology& topo);

// Several such nodes with a NIC per GPU: what RCCL matches as rome_model_81/84, whose options select its
// tuning_model_5 (rccl_tuning.hpp) across nodes too; no MSCCL algorithms there.
bool rccl_tuned_cluster(const topo::Topology& topo);

// The bundled algorithm RCCL runs for this call (AllPairs with its protocol and channel count), or
// nullopt where RCCL falls back to its NCCL-derived tuning model.
std::optional<NcclChoice> rccl_msccl_choice(const topo::Topology& topo, ir::Collective coll, double bytes);

}  // namespace ccforge::sim::nccl
