// Tree family. Binary trees in heap layout (position i has parent (i-1)/2). dbtree is the double
// binary tree allreduce (Sanders, Speck and Traeff 2009; NCCL's trees): two trees each carry half the
// data, the second mirrors the first (rank p-1-i at position i) so that the first tree's interior
// ranks are mostly the second's leaves. bintree is the pipelined binary-tree broadcast / reduce rooted
// at rank 0. Data is cut into req.chunks pieces that pipeline down (and up) the tree.
#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

struct HeapTree {
  std::vector<int> rank_at;  // rank at heap position
  int parent_pos(int i) const { return (i - 1) / 2; }
};

HeapTree tree(int p, bool mirrored) {
  HeapTree t;
  for (int i = 0; i < p; ++i) t.rank_at.push_back(mirrored ? p - 1 - i : i);
  return t;
}

// Children reduce into parents, deepest positions first, so a parent forwards only complete sums.
void reduce_up(Program& prog, const HeapTree& t, int index, int channel) {
  for (int i = static_cast<int>(t.rank_at.size()) - 1; i > 0; --i)
    prog.send_reduce(in(t.rank_at[i], index), in(t.rank_at[t.parent_pos(i)], index), channel);
}

void broadcast_down(Program& prog, const HeapTree& t, int index, int channel) {
  for (int i = 1; i < static_cast<int>(t.rank_at.size()); ++i)
    prog.send(in(t.rank_at[t.parent_pos(i)], index), in(t.rank_at[i], index), channel);
}

}  // namespace

Support dbtree_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce}); !s.ok()) return s;
  return need(req.channels == 1, "dbtree always uses its two trees: channels must be 1");
}

ir::Algorithm dbtree_generate(const GenRequest& req) {
  const int k = req.chunks;
  Program prog(req, candidate_name("dbtree", req), 2 * k, 2 * k, true);
  const HeapTree trees[2] = {tree(req.ngpus, false), tree(req.ngpus, true)};
  for (int piece = 0; piece < k; ++piece)
    for (int t = 0; t < 2; ++t) {
      reduce_up(prog, trees[t], t * k + piece, t);
      broadcast_down(prog, trees[t], t * k + piece, t);
    }
  return prog.materialize();
}

Support bintree_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::Broadcast, C::Reduce}); !s.ok()) return s;
  return need(req.channels == 1, "bintree has one tree: channels must be 1");
}

ir::Algorithm bintree_generate(const GenRequest& req) {
  const int k = req.chunks;
  Program prog(req, candidate_name("bintree", req), k, k, true);
  const HeapTree t = tree(req.ngpus, false);
  for (int piece = 0; piece < k; ++piece) {
    if (req.collective == C::Broadcast) broadcast_down(prog, t, piece, 0);
    else reduce_up(prog, t, piece, 0);
  }
  return prog.materialize();
}

}  // namespace ccforge::search
