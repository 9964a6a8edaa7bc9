// NCCL's algorithms as data movement (one function per algorithm family), lowered to tasks.
#pragma once

#include "ccforge/ir/ir.hpp"
#include "lowering.hpp"

namespace ccforge::sim::nccl {

struct NcclCall {
  ir::Collective coll;
  double bytes;  // nccl-tests size
  ir::Protocol proto;
  int nchannels;
};

// Ring (NCCL src/device/all_reduce.h runRing and siblings): per channel, a ring through all ranks;
// each step forwards one chunk to the next rank, pipelined in slices. Broadcast and reduce run the
// same ring as a pipelined chain from or to rank 0.
void lower_ring(Lowering& low, const NcclCall& call);

// Tree allreduce inside one node (NCCL's intra-node tree is a chain): reduce up the chain to rank 0,
// broadcast back down, pipelined per step-sized chunk.
void lower_tree(Lowering& low, const NcclCall& call);

// NVLS (NVSwitch multicast, Hopper+): each rank reduces its shard in the switch (multimem.ld_reduce:
// every rank's port sends the shard once, the owner's port receives it once), then multicasts the
// result (multimem.st: the owner's port sends once, every port receives once).
void lower_nvls(Lowering& low, const NcclCall& call);

// Grouped send/recv (alltoall: every pair; gather/scatter: every rank to/from rank 0), each pair's
// share as one Simple transfer spread over its p2p channels.
void lower_p2p(Lowering& low, const NcclCall& call);

}  // namespace ccforge::sim::nccl
