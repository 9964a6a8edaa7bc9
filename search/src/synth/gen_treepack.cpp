// Schedules over packed spanning trees (Blink, arXiv 1910.04940; ForestColl, arXiv 2402.06787). Each
// tree carries an equal share of its root's data, cut into req.chunks pieces that pipeline from the
// root outwards (allgather, broadcast) or from the leaves inwards (reducescatter, reduce); allreduce is
// the reduce-scatter over the trees followed by the allgather over the same trees.
#include <algorithm>

#include <fmt/core.h>

#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;
using Tree = GenRequest::Tree;

// Edges (parent, child) in breadth-first order from the root, children by ascending rank.
std::vector<std::pair<int, int>> bfs_edges(const Tree& t) {
  std::vector<std::pair<int, int>> edges;
  std::vector<int> frontier{t.root};
  for (std::size_t head = 0; head < frontier.size(); ++head) {
    const int u = frontier[head];
    for (int v = 0; v < static_cast<int>(t.parent.size()); ++v)
      if (t.parent[static_cast<std::size_t>(v)] == u) {
        edges.emplace_back(u, v);
        frontier.push_back(v);
      }
  }
  return edges;
}

bool spans(const Tree& t, int p) {
  return static_cast<int>(t.parent.size()) == p && t.root >= 0 && t.root < p &&
         static_cast<int>(bfs_edges(t).size()) == p - 1;
}

std::vector<Tree> trees_of_root(const GenRequest& req, int root) {
  std::vector<Tree> out;
  for (const Tree& t : req.trees)
    if (t.root == root) out.push_back(t);
  return out;
}

// Trees of every root, root-major; `base` gives the chunk where the share of (root, tree) starts.
struct Forest {
  int per_root;
  int k;
  int base(int root, int t) const { return (root * per_root + t) * k; }
  // Every tree on its own channel where the executor has enough: a threadblock runs its steps in
  // order, so trees sharing a connection's channel would wait on each other.
  int channel(int root, int t) const { return (root * per_root + t) % ir::Limits{}.max_channels; }
};

// Pushes chunks [first_chunk, +k) of the input buffer from the root to every rank along the tree.
void spread(Program& prog, const Tree& t, int first_chunk, int k, int channel) {
  const auto edges = bfs_edges(t);
  for (int piece = 0; piece < k; ++piece)
    for (auto [u, v] : edges) prog.send(in(u, first_chunk + piece), in(v, first_chunk + piece), channel);
}

// Reduces chunks [first_chunk, +k) of the input buffer from the leaves into the root.
void gather_in(Program& prog, const Tree& t, int first_chunk, int k, int channel) {
  const auto edges = bfs_edges(t);
  for (int piece = 0; piece < k; ++piece)
    for (auto it = edges.rbegin(); it != edges.rend(); ++it)
      prog.send_reduce(in(it->second, first_chunk + piece), in(it->first, first_chunk + piece), channel);
}

// Trees per root: all trees are rooted at 0 for broadcast/reduce, evenly spread otherwise.
int trees_per_root(const GenRequest& req) {
  return static_cast<int>(trees_of_root(req, 0).size());
}

}  // namespace

Support treepack_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce, C::AllGather, C::ReduceScatter, C::Broadcast, C::Reduce}); !s.ok()) return s;
  if (req.channels != 1) return {"treepack takes its parallelism from the trees: channels must be 1"};
  for (const Tree& t : req.trees)
    if (!spans(t, req.ngpus)) return {"a packed tree does not span all ranks"};
  const bool rooted = req.collective == C::Broadcast || req.collective == C::Reduce;
  if (rooted) return need(!trees_of_root(req, 0).empty(), "no packed tree rooted at rank 0 (run pack_trees first)");
  const std::size_t per_root = trees_of_root(req, 0).size();
  for (int r = 0; r < req.ngpus; ++r)
    if (per_root == 0 || trees_of_root(req, r).size() != per_root) return {"every rank needs the same number of packed trees"};
  return {};
}

ir::Algorithm treepack_generate(const GenRequest& req) {
  const int p = req.ngpus, k = req.chunks;
  const std::string name = candidate_name(fmt::format("treepack_t{}", trees_per_root(req)), req);
  if (req.collective == C::Broadcast || req.collective == C::Reduce) {
    const auto trees = trees_of_root(req, 0);
    const int chunks = static_cast<int>(trees.size()) * k;
    Program prog(req, name, chunks, chunks, true);
    for (std::size_t t = 0; t < trees.size(); ++t) {
      if (req.collective == C::Broadcast) spread(prog, trees[t], static_cast<int>(t) * k, k, static_cast<int>(t));
      else gather_in(prog, trees[t], static_cast<int>(t) * k, k, static_cast<int>(t));
    }
    return prog.materialize();
  }
  const Forest f{static_cast<int>(trees_of_root(req, 0).size()), k};
  const int per_rank = f.per_root * k;
  const int in_chunks = req.collective == C::AllGather ? per_rank : p * per_rank;
  const int out_chunks = req.collective == C::ReduceScatter ? per_rank : p * per_rank;
  Program prog(req, name, in_chunks, out_chunks, true);
  for (int r = 0; r < p; ++r) {
    const auto trees = trees_of_root(req, r);
    for (int t = 0; t < f.per_root; ++t) {
      if (req.collective != C::AllGather) gather_in(prog, trees[static_cast<std::size_t>(t)], f.base(r, t), k, f.channel(r, t));
    }
  }
  for (int r = 0; r < p && req.collective != C::ReduceScatter; ++r) {
    const auto trees = trees_of_root(req, r);
    for (int t = 0; t < f.per_root; ++t) {
      const Tree& tree = trees[static_cast<std::size_t>(t)];
      if (req.collective == C::AllReduce) {
        spread(prog, tree, f.base(r, t), k, f.channel(r, t));
        continue;
      }
      for (int piece = 0; piece < k; ++piece)
        for (auto [u, v] : bfs_edges(tree)) {
          const int local = t * k + piece;
          const ir::ChunkRef src = u == r ? in(r, local) : out(u, r * per_rank + local);
          prog.send(src, out(v, r * per_rank + local), f.channel(r, t));
        }
    }
  }
  return prog.materialize();
}

}  // namespace ccforge::search
