// Which part of NCCL's multi-node rings the simulator runs. Each channel's ring visits nodes 0..N-1
// (node_rings.hpp), and its channels' distinct rings are rotations of one another (local GPU and rail).
// Where the fabric repeats every B nodes (a leaf's nodes of each rail on a rail-optimized fat tree), a
// ring also maps onto itself when shifted by B nodes: ring positions i and i + B·g (g GPUs per node) do
// the same work at the same times, as every step of the ring lowering is the same for every position.
// Then only the B·g positions of the first block run, each send standing for its N/B copies (and for
// the other distinct rings' sends when those fold too); the first position's step s waits for the
// block's last position's step s - 1, standing for the previous block's last position. Exact
// (copy_folding.hpp: the copies' routes must agree in latency, path class and link rates, and load each
// class of symmetric links, and of the GPUs' protocol issue rates, alike); checked on the routes, never
// assumed.
#pragma once

#include <optional>
#include <vector>

#include "costs.hpp"
#include "lowering.hpp"

namespace ccforge::sim::nccl {

struct RingFold {
  int block_nodes = 0;  // B
  int positions = 0;    // ring positions run per ring: B * gpus per node
  // Per ring run (one when the rings merged, else one per ring given), per position: the folded path.
  std::vector<std::vector<PathId>> paths;
};

// `rings`: each distinct ring's order over all ranks, ring 0 first. `merge`: ring 0 stands for all of
// them (the caller runs it with their common weight); otherwise each ring runs, folded by blocks alone.
// Takes the smallest B, a divisor of the node count, for which the fold is exact: B = N folds nothing
// by blocks and is tried only when merging. nullopt when no B is exact.
// `costs`: the protocol's, whose per-GPU issue rate (LL) folds with the links.
std::optional<RingFold> fold_ring(Lowering& low, const ProtocolCosts& costs, const std::vector<std::vector<int>>& rings,
                                  bool merge);

}  // namespace ccforge::sim::nccl
