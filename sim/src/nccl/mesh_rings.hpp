// Per-channel rings on a node whose GPUs are joined by direct links (MI300X xGMI, DGX-1 NVLink; no
// switch between GPUs). NCCL's topology search (src/graph/search.cc ncclTopoCompute ->
// ncclTopoSearchRec) finds each channel's ring on the link bandwidth the previous channels left, so
// channels spread over all links instead of all following one rank order.
#pragma once

#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::sim::nccl {

// The rings NCCL's search would find, in search order; channel c runs ring c % size(). Each directed
// GPU-GPU link carries as many rings as its bandwidth holds multiples of the slowest such link (a
// double NVLink carries two); each ring is a Hamiltonian cycle over links with capacity left,
// starting at rank 0 and preferring the neighbour with most capacity left (lowest rank on ties); the
// search backtracks across channels, as NCCL's does, until no GPU has links left or its budget ends.
// Empty when the topology is not one node of direct links (switches, PCIe, several nodes) or no ring
// of direct links exists: then every channel shares one ring order, as before.
std::vector<std::vector<int>> mesh_rings(const topo::Topology& topo);

}  // namespace ccforge::sim::nccl
