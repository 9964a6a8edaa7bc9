// Where channels cross between nodes, and the multi-node rings that cross there: one definition for
// sim's NCCL baseline (ring and tree channels) and search's ring generators (search::find_rings).
//
// NCCL's topology search builds each inter-node channel around one NIC that exists: it walks the NICs
// the node has, in turn per channel, and enters the node at the GPU most local to that NIC, leaving
// again towards the same NIC (src/graph/search.cc ncclTopoSearchRecNet: `nets[(nChannels+i)%netCount]`,
// then "the most local GPUs"; crossNic 0). A NIC that is gone (a port down is skipped by the IB
// transport) carries no channel, and the GPU behind it is only passed through inside its node.
#pragma once

#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::sim {

// Local GPU indices at which channels enter and leave every node, ascending: GPUs that are the most
// local GPU of a NIC in service (behind its PCIe switch, else on its NUMA node, then the lowest index), on every node alike, so that
// a ring's crossing stays on one rail (cross-rail routes would leave through another NIC, topology/README).
// All local GPUs when the nodes have no NICs or no rail is alive on all of them.
std::vector<int> rail_entries(const topo::Topology& topo);

// Channel `channel`'s ring over several nodes: node by node, each node's GPUs from its entry e =
// entries[channel % size] on (e, e+1, ..., e-1), so that the ring leaves from GPU e-1 towards the next
// node's GPU e and its crossing travels over rail e (PXN: relayed over NVLink to GPU e's NIC).
// `entries` is rail_entries(topo), found once by the caller (it reads every link). On nodes of direct
// links, `node_cycles` (node_mesh_rings) gives the order instead: cycle channel % size, from e on, so that
// channels entering at different GPUs cross the node on different links and the ring's last GPU there is
// the cycle's predecessor of e, whose link to e is the one the crossing's PXN relay takes; empty: the
// rotation above (switched nodes, where every order crosses the same switch).
std::vector<int> multi_node_ring(const topo::Topology& topo, const std::vector<int>& entries,
                                 const std::vector<std::vector<int>>& node_cycles, int channel);

// How many distinct multi_node_ring channels there are before they repeat: one per rail, or on mesh
// nodes one per cycle (8 rails of a full 8-GPU mesh would need 8 x 8 of its 56 links, so an eighth ring
// would share a cycle and halve two rings; NCCL's search, which charges each channel's bandwidth to the
// links it crosses, keeps the rings that fit at full speed).
int multi_node_ring_count(const std::vector<int>& entries, const std::vector<std::vector<int>>& node_cycles);

}  // namespace ccforge::sim
