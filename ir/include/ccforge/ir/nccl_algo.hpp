// NCCL's algorithms by name: what sim models, search tunes and the selection tables name as NCCL's
// choice. Here, beside the collective and protocol names, so that every part spells them one way.
#pragma once

#include <optional>
#include <string_view>

namespace ccforge::ir {

// NCCL's algorithms, in NCCL's index order (src/include/device.h), plus P2p: the grouped send/recv
// NCCL (and nccl-tests) use for alltoall, gather and scatter; and AllPairs: the MSCCL all-pairs
// allreduce RCCL runs on an MI300X node before its tuning model (sim/src/nccl/rccl_msccl.cpp).
enum class NcclAlgo { Tree, Ring, Nvls, NvlsTree, Pat, P2p, AllPairs };
const char* to_string(NcclAlgo algo);  // "tree", "ring", "nvls", "nvlstree", "pat", "p2p", "allpairs"
std::optional<NcclAlgo> nccl_algo_from_string(std::string_view s);  // case-insensitive ("NVLS" ok)

}  // namespace ccforge::ir
