// Link-disjoint rings on a node whose GPUs are joined by direct links (MI300X xGMI, DGX-1 NVLink; no
// switch between GPUs): the one ring packer. sim's NCCL baseline runs channel c on ring c % size(), as
// NCCL's topology search (src/graph/search.cc ncclTopoCompute -> ncclTopoSearchRec) finds each
// channel's ring on the link bandwidth the previous channels left; search's ring generators take their
// rings from it too (search::find_rings).
#pragma once

#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::sim {

// The rings NCCL's search would find, in search order. Each directed GPU-GPU link carries as many
// rings as its bandwidth holds multiples of the slowest such link (a double NVLink carries two); each
// ring is a Hamiltonian cycle over links with capacity left, starting at rank 0 and preferring the
// neighbour with most capacity left (lowest rank on ties); the search backtracks across channels, as
// NCCL's does, until no GPU has links left or its budget ends. Empty when the topology is not one node
// of two or more GPUs joined by direct links (switches, PCIe, several nodes) or no ring of direct
// links exists.
std::vector<std::vector<int>> mesh_rings(const topo::Topology& topo);

// The same rings over the local GPUs of one node of a cluster of such nodes (found on node 0; cluster
// files repeat one node), as cycles of local indices: NCCL's multi-node search charges each channel's
// path to the links it crosses inside the node too, so channels that enter a mesh node at different GPUs
// also cross it on different links (node_rings.hpp). Where a crossing leaves from the sender's own NIC
// instead of relaying to the receiver's rail (RCCL below 64 ranks, topology/src/routes.cpp), the last
// link of a cycle would go unused: then each shape is a Hamiltonian path from one of `entries`
// (rail_entries) to another, link-disjoint, every path ending at a different GPU, so that each NIC takes
// one channel in and one out, and every path's second GPU different too, since a tree channel's second
// network link leaves from the NIC of its ring's second GPU (ROCm/rccl @0cbce2a src/graph/rome_models.cc
// parseRome, `graph->id == 1`). That is RCCL's hand-made MI300X layout with 8 NICs: on a full 8-GPU mesh
// the search returns rome_model_81's eight rings ("N0 0 1 2 3 4 5 6 7 N7|N1 1 0 2 4 3 5 7 6 N6|...",
// repeated rotated to 64 channels) in order. Empty for one node, or nodes that are not meshes.
std::vector<std::vector<int>> node_mesh_rings(const topo::Topology& topo, const std::vector<int>& entries);

}  // namespace ccforge::sim
