/* NCCL's numbering of collectives, algorithms and protocols: the one copy every part uses (the tuner
 * plugin's ABI, sim's tuning tables and NCCL_ALGO/NCCL_PROTO lists, search's nccl-tuner.conf). Plain C
 * so that the tuner plugin, a self-contained .so, can include it too. Sources: NVIDIA/nccl v2.28.9-1
 * src/include/nccl_common.h (ncclFunc_t), src/include/device.h (NCCL_ALGO_*, NCCL_PROTO_*),
 * src/include/nccl_tuner.h; the same values in every version from 2.19 to 2.28. */
#ifndef CCFORGE_COMMON_NCCL_NUMBERING_H
#define CCFORGE_COMMON_NCCL_NUMBERING_H

/* ncclFunc_t (nccl_common.h): the five collectives a tuner is asked about keep these values in every
 * version from 2.19 to 2.28. */
typedef int ccf_nccl_func_t;
#define CCF_NCCL_FUNC_BROADCAST 0
#define CCF_NCCL_FUNC_REDUCE 1
#define CCF_NCCL_FUNC_ALLGATHER 2
#define CCF_NCCL_FUNC_REDUCESCATTER 3
#define CCF_NCCL_FUNC_ALLREDUCE 4
#define CCF_NCCL_NUM_TUNED_FUNCS 5

/* Algorithm and protocol indices of the cost table (nccl_tuner.h, v2.28.9-1). */
#define CCF_NCCL_ALGO_UNDEF (-1)
#define CCF_NCCL_ALGO_TREE 0
#define CCF_NCCL_ALGO_RING 1
#define CCF_NCCL_ALGO_COLLNET_DIRECT 2
#define CCF_NCCL_ALGO_COLLNET_CHAIN 3
#define CCF_NCCL_ALGO_NVLS 4
#define CCF_NCCL_ALGO_NVLS_TREE 5
#define CCF_NCCL_ALGO_PAT 6
#define CCF_NCCL_NUM_ALGORITHMS 7
#define CCF_NCCL_PROTO_UNDEF (-1)
#define CCF_NCCL_PROTO_LL 0
#define CCF_NCCL_PROTO_LL128 1
#define CCF_NCCL_PROTO_SIMPLE 2
#define CCF_NCCL_NUM_PROTOCOLS 3

/* Their names in that order, as NCCL prints them and NCCL_ALGO/NCCL_PROTO take them (case-insensitive):
 * src/init.cc ncclFuncStr, src/graph/tuning.cc ncclAlgoStr and ncclProtoStr. */
#define CCF_NCCL_FUNC_NAMES "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"
#define CCF_NCCL_ALGO_NAMES "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"
#define CCF_NCCL_PROTO_NAMES "LL", "LL128", "Simple"

#endif
