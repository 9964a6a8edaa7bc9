// Hierarchical two-level algorithms for multi-node clusters (algorithms.md §8.1, §8.6; BlueConnect,
// Cho et al. SysML 2019; MSCCL alltoall_a100_two_step). Rank (n, a) = n * g + a on node n, local
// index a. Intra-node phases use direct all-pairs on channel 0; inter-node phases run one ring per
// rail (same local index on every node, so each NIC carries only its GPU's shard) on channel 1.
// Allreduce's closing intra allgather runs on channel 2: the executor repeats the program per tile,
// and with its own tbs tile i's allgather overlaps tile i+1's reduce-scatter and ring instead of
// queueing behind them (on shared tbs the three phases ran one after another).
//   allreduce:     intra reduce-scatter -> per-rail ring allreduce of the shard -> intra allgather
//   allgather:     per-rail ring allgather -> intra allgather of the N gathered blocks
//   reducescatter: intra reduce-scatter onto rails -> per-rail ring reduce-scatter
//   alltoall:      two-step: gather by destination rail in scratch, then one message per node pair
#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

struct Grid {
  int nodes, g, k;
  int rank(int n, int a) const { return n * g + a; }
};

void hier_allreduce(Program& prog, const Grid& G) {
  const int N = G.nodes, shard = N * G.k;
  for (int n = 0; n < N; ++n) {
    for (int a = 0; a < G.g; ++a)
      for (int l = 0; l < G.g; ++l)
        if (l != a) prog.send(in(G.rank(n, a), l * shard, shard), scratch(G.rank(n, l), a * shard, shard), 0);
    for (int l = 0; l < G.g; ++l)
      for (int a = 0; a < G.g; ++a)
        if (a != l) prog.reduce(scratch(G.rank(n, l), a * shard, shard), in(G.rank(n, l), l * shard, shard));
  }
  for (int l = 0; l < G.g; ++l) {
    auto index = [&](int seg) { return l * shard + seg * G.k; };
    for (int hop = 0; hop + 1 < N; ++hop)
      for (int c = 0; c < N; ++c)
        prog.send_reduce(in(G.rank((c + 1 + hop) % N, l), index(c), G.k), in(G.rank((c + 2 + hop) % N, l), index(c), G.k), 1);
    for (int hop = 0; hop + 1 < N; ++hop)
      for (int c = 0; c < N; ++c)
        prog.send(in(G.rank((c + hop) % N, l), index(c), G.k), in(G.rank((c + hop + 1) % N, l), index(c), G.k), 1);
  }
  for (int n = 0; n < N; ++n)
    for (int l = 0; l < G.g; ++l)
      for (int a = 0; a < G.g; ++a)
        if (a != l) prog.send(in(G.rank(n, l), l * shard, shard), in(G.rank(n, a), l * shard, shard), 2);
}

void hier_allgather(Program& prog, const Grid& G) {
  const int N = G.nodes, k = G.k;
  for (int a = 0; a < G.g; ++a)
    for (int hop = 0; hop + 1 < N; ++hop)
      for (int x = 0; x < N; ++x) {
        const int owner = G.rank(x, a), from = G.rank((x + hop) % N, a), to = G.rank((x + hop + 1) % N, a);
        prog.send(hop == 0 ? in(from, 0, k) : out(from, owner * k, k), out(to, owner * k, k), 1);
      }
  for (int n = 0; n < N; ++n)
    for (int a = 0; a < G.g; ++a)
      for (int m = 0; m < N; ++m)
        for (int b = 0; b < G.g; ++b) {
          if (b == a) continue;
          const int owner = G.rank(m, a), from = G.rank(n, a);
          prog.send(m == n ? in(from, 0, k) : out(from, owner * k, k), out(G.rank(n, b), owner * k, k), 0);
        }
}

// Rail l's blocks (m, l) are strided in the input, so each arrives as N sends; the receiver gathers
// its own blocks next to them in scratch (slot a holds sender a's N blocks, contiguous) and reduces
// whole slots, which keeps the local work at N + g steps instead of N * (g - 1) (64-step tb limit).
void hier_reducescatter(Program& prog, const Grid& G) {
  const int N = G.nodes, k = G.k;
  auto slot = [&](int a, int m) { return (a * N + m) * k; };
  for (int n = 0; n < N; ++n) {
    for (int a = 0; a < G.g; ++a)
      for (int m = 0; m < N; ++m)
        for (int l = 0; l < G.g; ++l)
          if (l != a) prog.send(in(G.rank(n, a), G.rank(m, l) * k, k), scratch(G.rank(n, l), slot(a, m), k), 0);
    for (int l = 0; l < G.g; ++l) {
      const int self = G.rank(n, l);
      for (int m = 0; m < N; ++m) prog.copy(in(self, G.rank(m, l) * k, k), scratch(self, slot(l, m), k));
      for (int a = 0; a < G.g; ++a)
        if (a != l) prog.reduce(scratch(self, slot(a, 0), N * k), scratch(self, slot(l, 0), N * k));
    }
  }
  // Per-rail ring reduce-scatter over the nodes on slot l; block x ends on node x, then in its output.
  for (int l = 0; l < G.g; ++l) {
    for (int hop = 0; hop + 1 < N; ++hop)
      for (int x = 0; x < N; ++x)
        prog.send_reduce(scratch(G.rank((x + 1 + hop) % N, l), slot(l, x), k), scratch(G.rank((x + 2 + hop) % N, l), slot(l, x), k), 1);
    for (int x = 0; x < N; ++x) prog.copy(scratch(G.rank(x, l), slot(l, x), k), in(G.rank(x, l), G.rank(x, l) * k, k));
  }
}

void hier_alltoall(Program& prog, const Grid& G) {
  const int N = G.nodes, g = G.g, k = G.k;
  for (int n = 0; n < N; ++n)
    for (int a = 0; a < g; ++a)
      for (int m = 0; m < N; ++m)
        for (int b = 0; b < g; ++b) {
          const int self = G.rank(n, a), dest = G.rank(m, b);
          if (m == n) {
            if (b == a) prog.copy(in(self, dest * k, k), out(self, self * k, k));
            else prog.send(in(self, dest * k, k), out(dest, self * k, k), 0);
          } else if (b == a) {
            prog.copy(in(self, dest * k, k), scratch(self, (m * g + a) * k, k));
          } else {
            prog.send(in(self, dest * k, k), scratch(G.rank(n, b), (m * g + a) * k, k), 0);
          }
        }
  // Rank (n,b) holds, contiguously, the g blocks node n sends to (m,b): one message per node pair.
  for (int n = 0; n < N; ++n)
    for (int b = 0; b < g; ++b)
      for (int m = 0; m < N; ++m)
        if (m != n) prog.send(scratch(G.rank(n, b), m * g * k, g * k), out(G.rank(m, b), n * g * k, g * k), 1);
}

}  // namespace

Support hier_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll}); !s.ok()) return s;
  const int g = req.gpus_per_node;
  if (g <= 0 || g >= req.ngpus || req.ngpus % g != 0) return {"hierarchical needs at least two nodes of equal size"};
  return need(req.channels == 1, "hierarchical has one structure: channels must be 1");
}

ir::Algorithm hier_generate(const GenRequest& req) {
  const int p = req.ngpus, g = req.gpus_per_node, k = req.chunks;
  const Grid G{p / g, g, k};
  const std::string name = candidate_name("hierarchical", req);
  switch (req.collective) {
    case C::AllReduce: {
      Program prog(req, name, p * k, p * k, true);
      hier_allreduce(prog, G);
      return prog.materialize();
    }
    case C::AllGather: {
      Program prog(req, name, k, p * k, true);
      hier_allgather(prog, G);
      return prog.materialize();
    }
    case C::ReduceScatter: {
      Program prog(req, name, p * k, k, true);
      hier_reducescatter(prog, G);
      return prog.materialize();
    }
    default: {
      Program prog(req, name, p * k, p * k, false);
      hier_alltoall(prog, G);
      return prog.materialize();
    }
  }
}

}  // namespace ccforge::search
