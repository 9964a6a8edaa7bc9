// The generator registry: one explicit table (name, description, citation, collectives, functions, the
// grid a tune tries and what it feeds the generator), printed by `ccforge tune --list`. Direct and
// two-shot's chunks are allreduce reduction lanes (8 = one per rank, as the published NDv4/NDv5 allpairs
// files). Order is fixed and is the final tie-break when ranking.
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "generators.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

std::vector<GeneratorInfo> make_registry() {
  return {
      {"ring", "ring reduce-scatter/allgather, allreduce = RS+AG; one ring per channel (multi-ring over disjoint NVLink cycles)",
       "Patarasuk and Yuan, JPDC 2009", {C::AllReduce, C::AllGather, C::ReduceScatter}, &ring_supports, &ring_generate,
       {{1, 2, 4, 8}, {1, 2, 4}, {1}, {1, 4}}, {.channels_are_rings = true}},
      {"chain", "pipelined chain broadcast/reduce along the ring order from root 0, chunks pieces in flight",
       "NCCL ring broadcast; algorithms.md 8.4", {C::Broadcast, C::Reduce}, &chain_supports, &chain_generate,
       {{1, 2, 4}, {1, 4}, {1, 4, 8}}, {.channels_are_rings = true}},
      {"direct", "one-shot all-pairs: every rank exchanges its data with every peer in one round",
       "msccl-tools allreduce_1step, allgather_allpairs, alltoall_allpairs", {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll, C::Broadcast, C::Reduce, C::Gather, C::Scatter},
       &direct_supports, &direct_generate, {{1}, {1, 2, 4, 8}, {1, 8}}, {}},
      {"twoshot", "two-shot all-pairs allreduce: direct reduce-scatter then direct allgather",
       "msccl-tools allreduce_a100_allpairs; algorithms.md 8.1", {C::AllReduce}, &twoshot_supports, &twoshot_generate, {{1}, {1, 2, 4, 8}, {1, 8}}, {}},
      {"rd", "recursive doubling (power-of-two ranks): log2 p exchange rounds",
       "Thakur, Rabenseifner and Gropp, IJHPCA 2005", {C::AllReduce, C::AllGather}, &rd_supports, &rd_generate, {}, {}},
      {"rhd", "recursive halving reduce-scatter; allreduce = halving RS + doubling AG (Rabenseifner)",
       "Thakur, Rabenseifner and Gropp, IJHPCA 2005", {C::AllReduce, C::ReduceScatter}, &rhd_supports, &rhd_generate, {}, {}},
      {"bruck", "Bruck allgather/alltoall: ceil(log2 p) rounds for any p",
       "Bruck et al., IEEE TPDS 1997", {C::AllGather, C::AllToAll}, &bruck_supports, &bruck_generate, {}, {}},
      {"dbtree", "pipelined double binary tree allreduce: two mirrored trees, half the data each",
       "Sanders, Speck and Traeff, Parallel Computing 2009; NCCL trees", {C::AllReduce}, &dbtree_supports, &dbtree_generate, {{1}, {1, 2, 4}, {1, 4, 8}}, {}},
      {"bintree", "pipelined binary-tree broadcast/reduce rooted at rank 0",
       "algorithms.md 8.4", {C::Broadcast, C::Reduce}, &bintree_supports, &bintree_generate, {{1}, {1, 4}, {1, 4, 8}}, {}},
      {"scatter_allgather", "broadcast as direct scatter from root 0 then ring allgather",
       "Barnett et al. 1994 (van de Geijn); MPICH long-message broadcast", {C::Broadcast}, &scatter_ag_supports, &scatter_ag_generate, {}, {}},
      {"hierarchical", "two-level: intra-node all-pairs + per-rail inter-node rings; alltoall two-step",
       "Cho et al., BlueConnect, SysML 2019; msccl-tools alltoall_a100_two_step", {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll},
       &hier_supports, &hier_generate, {{1}, {1, 2, 4}, {1, 4, 8}}, {}},  // chunks: allreduce pipeline pieces
      {"treepack", "spanning-tree packing over direct links (needs trees from pack_trees)",
       "Blink, arXiv 1910.04940; ForestColl, arXiv 2402.06787", {C::AllReduce, C::AllGather, C::ReduceScatter, C::Broadcast, C::Reduce},
       &treepack_supports, &treepack_generate,
       {{1}, {1, 2}, {1, 2, 8}}, {.needs_trees = true}},  // chunks 8: deep trees on switch graphs need pipelining
  };
}

}  // namespace

const std::vector<GeneratorInfo>& generators() {
  static const std::vector<GeneratorInfo> registry = make_registry();
  return registry;
}

const GeneratorInfo* find_generator(std::string_view name) {
  for (const GeneratorInfo& g : generators())
    if (g.name == name) return &g;
  return nullptr;
}

Generated try_generate(const GeneratorInfo& gen, const GenRequest& request) {
  if (Support s = gen.supports(request); !s.ok()) return {std::nullopt, std::move(s.why_not)};
  try {
    return {gen.generate(request), {}};
  } catch (const DiagError& e) {
    return {std::nullopt, e.what()};
  }
}

Support check_common(const GenRequest& req, const std::vector<ir::Collective>& collectives) {
  if (std::find(collectives.begin(), collectives.end(), req.collective) == collectives.end())
    return {fmt::format("does not implement {}", ir::to_string(req.collective))};
  if (req.ngpus < 2) return {"needs at least 2 ranks"};
  if (req.channels < 1 || req.instances < 1 || req.chunks < 1) return {"channels, instances and chunks must be >= 1"};
  return {};
}

std::vector<int> ring_order(const GenRequest& req, int j) {
  if (!req.rings.empty()) return req.rings[static_cast<std::size_t>(j) % req.rings.size()];
  std::vector<int> identity(static_cast<std::size_t>(req.ngpus));
  for (int r = 0; r < req.ngpus; ++r) identity[static_cast<std::size_t>(r)] = r;
  return identity;
}

Support check_rings(const GenRequest& req) {
  if (!req.rings.empty() && static_cast<int>(req.rings.size()) < req.channels)
    return {fmt::format("{} channels requested but only {} rings given", req.channels, req.rings.size())};
  for (const auto& ring : req.rings) {
    const std::set<int> ranks(ring.begin(), ring.end());
    if (static_cast<int>(ring.size()) != req.ngpus || static_cast<int>(ranks.size()) != req.ngpus ||
        *ranks.begin() != 0 || *ranks.rbegin() != req.ngpus - 1)
      return {"a ring order is not a permutation of the ranks"};
  }
  return {};
}

}  // namespace ccforge::search
