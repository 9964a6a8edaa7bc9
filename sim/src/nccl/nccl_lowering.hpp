// NCCL's algorithms as data movement (one function per algorithm family), lowered to tasks.
#pragma once

#include <cstdint>
#include <limits>

#include "ccforge/ir/ir.hpp"
#include "lowering.hpp"

namespace ccforge::sim::nccl {

struct NcclCall {
  ir::Collective coll;
  double bytes;  // nccl-tests size
  ir::Protocol proto;
  int nchannels;
  int root = 0;  // broadcast, reduce, gather, scatter
  // Ring, chain and tree: lower only the first chunks - 1 chunks of each channel and its last, declared as
  // repeated blocks (chunk_loop.hpp); kAllChunks (the default) lowers every chunk.
  std::uint64_t chunks = std::numeric_limits<std::uint64_t>::max();
};

// Ring (NCCL src/device/all_reduce.h runRing and siblings): per channel, a ring through all ranks;
// each step forwards one chunk to the next rank, pipelined in slices. Broadcast and reduce run the
// same ring as a pipelined chain from or to the root. `fold`: across nodes, run one ring for all distinct
// rings when they are exact images of one another (copy_folding.hpp); false runs every ring.
void lower_ring(Lowering& low, const NcclCall& call, bool fold = true);
// Chunks per channel of lower_ring's loop.
std::uint64_t ring_chunks(const NcclCall& call, const topo::Topology& topo);

// Tree allreduce (NCCL's double binary tree, trees.hpp; inside one node a chain): reduce up to the
// root, broadcast back down, pipelined per step-sized chunk. `fold`: across nodes, run one rotation of each tree for all where that is exact (copy_folding.hpp).
void lower_tree(Lowering& low, const NcclCall& call, bool fold = true);
// Chunks per channel of lower_tree's loop.
std::uint64_t tree_chunks(const NcclCall& call, const topo::Topology& topo, const SimConstants& params);

// NVLS (NVSwitch multicast, Hopper+): each rank reduces its shard in the switch (multimem.ld_reduce:
// every rank's port sends the shard once, the owner's port receives it once), then multicasts the
// result (multimem.st: the owner's port sends once, every port receives once).
void lower_nvls(Lowering& low, const NcclCall& call);

// The switch-port paths of NVLS operations among GPUs first .. first+count-1 (one NVSwitch domain),
// indexed by owner - first.
struct NvlsPaths {
  std::vector<PathId> reduce;     // per owner: every port sends, the owner's port receives
  std::vector<PathId> multicast;  // per owner: the owner's port sends, every port receives
};
NvlsPaths nvls_paths(Lowering& low, int first, int count);

// Handoff of one NVLS step among GPUs first .. first+count-1 (one NVSwitch domain): the multimem poll of
// the step flags plus the fence after the step's multimem loads and stores, two round trips.
SimTime nvls_step_handoff(const topo::Topology& topo, int first, int count);

// NVLS chunk per rank and channel for a call of `bytes` (NCCL computeColl, NCCL_ALGO_NVLS).
double nvls_chunk(double bytes, int nchannels, int nranks);

// NVLSTree allreduce (multi-node, Hopper+ NVSwitch; NCCL all_reduce.h runNvlsTree): each channel's
// buffer is split over the NVLS heads (one per NIC). Per head share and chunk: NVLS reduce inside every
// node onto the head GPU, reduce up a tree of the nodes' heads over the network (channel c uses tree
// c % 2), back down, then NVLS multicast of the result inside every node. `fold`: simulate one head for
// all when they are exact images of one another (copy_folding.hpp); false runs every head.
void lower_nvls_tree(Lowering& low, const NcclCall& call, bool fold = true);

// PAT allgather/reducescatter (NCCL 2.23+, one GPU per node): the binomial exchange pattern of
// collectives.h PatAGAlgorithm/PatRSAlgorithm with full aggregation. Allgather walks the dimensions
// from the farthest (2^(D-1)) to the nearest: in dimension d every rank sends to rank - 2^d the
// pieces whose offset has lowest set bit d, which it received in the farther dimensions. Reducescatter
// is the same exchange reversed in time and direction.
void lower_pat(Lowering& low, const NcclCall& call);

// RCCL's bundled MSCCL all-pairs allreduce (rccl_msccl.cpp): per channel every rank sends each peer that
// peer's 1/p share, the owner reduces the shares it received, then sends the result to every peer.
void lower_all_pairs(Lowering& low, const NcclCall& call);

// Grouped send/recv (alltoall: every pair; gather/scatter: every rank to/from rank 0), as NCCL's
// p2p kernel runs each pair's share (p2p.cpp): cut into parts, one p2p channel each, streamed in
// chunks through the connection's FIFO.
void lower_p2p(Lowering& low, const NcclCall& call);

// How NCCL runs one send of `bytes` on this topology at `version` (sim.nccl.version).
struct P2pOp {
  ir::Protocol proto = ir::Protocol::Simple;
  int parts = 1;            // channels it runs on
  double part_bytes = 0.0;  // bytes per part
  double step = 0.0;        // NCCL_P2P_{NVL,PCI,NET}_CHUNKSIZE
  double chunk = 0.0;       // bytes a part moves per FIFO slot
};
P2pOp p2p_op(const NcclCall& call, const topo::Topology& topo, NcclVersion version, double bytes);

}  // namespace ccforge::sim::nccl
