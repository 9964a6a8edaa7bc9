#include "ring_folding.hpp"

#include <cstdint>

#include "copy_folding.hpp"
#include "costs.hpp"

namespace ccforge::sim::nccl {
namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

const topo::Route& send_route(const topo::Topology& topo, const std::vector<int>& ring, int position) {
  const auto p = static_cast<int>(ring.size());
  return topo.route(ring[static_cast<std::size_t>(position)], ring[static_cast<std::size_t>((position + 1) % p)]);
}

// The fold by blocks of `block_nodes` nodes, or nullopt where it is not exact. Flow types are the
// positions of the first block (of ring 0 when merging, else of each ring); a type's copies are the
// same position in every block (of every ring when merging).
std::optional<RingFold> fold_blocks(Lowering& low, const ProtocolCosts& costs, const std::vector<std::vector<int>>& rings,
                                    bool merge, int block_nodes) {
  const topo::Topology& topo = low.topo();
  const int positions = block_nodes * topo.gpus_per_node();
  const int blocks = topo.num_nodes() / block_nodes;
  const std::size_t runs = merge ? 1 : rings.size();
  std::vector<std::vector<std::vector<std::uint32_t>>> paths;  // [run * positions + position][copy]
  paths.reserve(runs * static_cast<std::size_t>(positions));
  for (std::size_t run = 0; run < runs; ++run) {
    for (int i = 0; i < positions; ++i) {
      const topo::Route& first = send_route(topo, rings[run], i);
      auto& copies = paths.emplace_back();
      for (std::size_t r = run; r < (merge ? rings.size() : run + 1); ++r) {
        for (int k = 0; k < blocks; ++k) {
          // Alphas and whether the send crosses the network (its FIFO order) must agree too.
          const topo::Route& route = send_route(topo, rings[r], i + k * positions);
          if (route.latency != first.latency || route.path_class != first.path_class ||
              route.links.size() != first.links.size())
            return std::nullopt;
          const auto at = static_cast<std::size_t>(i + k * positions);
          copies.push_back(low.transfer_resources(rings[r][at], rings[r][(at + 1) % rings[r].size()], costs));
        }
      }
    }
  }
  const auto folded = fold_copies(topo, paths, low.extra_capacity());
  if (!folded) return std::nullopt;
  RingFold fold{block_nodes, positions, std::vector<std::vector<PathId>>(runs)};
  for (std::size_t t = 0; t < folded->size(); ++t)
    fold.paths[t / static_cast<std::size_t>(positions)].push_back(low.graph().add_path((*folded)[t]));
  return fold;
}

}  // namespace

std::optional<RingFold> fold_ring(Lowering& low, const ProtocolCosts& costs, const std::vector<std::vector<int>>& rings,
                                  bool merge) {
  const int nodes = low.topo().num_nodes();
  for (int block_nodes : divisors(nodes)) {
    if (block_nodes == nodes && !merge) break;  // nothing left to fold
    if (auto fold = fold_blocks(low, costs, rings, merge, block_nodes)) return fold;
  }
  return std::nullopt;
}

}  // namespace ccforge::sim::nccl
