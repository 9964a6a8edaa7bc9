// NCCL's index of an algorithm, protocol or collective, as its tuning tables, NCCL_ALGO/NCCL_PROTO lists
// and tuner plugins number them (ccforge/common/nccl_numbering.h holds the numbers): one mapping from
// ccforge's enums for sim and search.
#pragma once

#include "ccforge/common/nccl_numbering.h"
#include "ccforge/ir/ir.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {

// CCF_NCCL_ALGO_UNDEF for what NCCL's tables have no row for (grouped send/recv, RCCL's all-pairs files).
int nccl_algo_index(NcclAlgo algo);
// The row NCCL's tuning tables and cost table give the algorithm: its index, ring's where it has none.
int nccl_algo_row(NcclAlgo algo);
int nccl_proto_index(ir::Protocol proto);
// ncclFunc_t of the collectives NCCL tunes; -1 for those it runs as grouped send/recv.
int nccl_func_index(ir::Collective coll);

}  // namespace ccforge::sim
