// Hierarchical two-level algorithms for multi-node clusters (algorithms.md §8.1, §8.6; BlueConnect,
// Cho et al. SysML 2019; MSCCL alltoall_a100_two_step). Rank (n, a) = n * g + a on node n, local
// index a. Intra-node phases are direct all-pairs; inter-node phases run per rail (same local index on
// every node, so each NIC carries only its GPU's shard): rings, or for allreduce on 4, 8, 16, ... nodes
// recursive halving/doubling.
// Channels: every phase has its own pair, so the executor, which repeats the program per tile, overlaps
// tile i's later phases with tile i+1's earlier ones instead of queueing them on shared threadblocks.
// Within a pair the two directions between two ranks (intra and halving/doubling: lower to higher index
// or back; rings: from an even or odd node) use different channels and so different threadblocks: on
// one shared tb the rank whose receive comes first in program order waits for it before sending, which
// turns both directions of every exchange into one after the other (gen_direct.cpp does the same).
//   allreduce:     intra reduce-scatter -> per-rail allreduce of the shard -> intra allgather
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

// First channel of each phase's pair, in phase order.
constexpr int kIntraFirst = 0;  // the first (or only) intra-node phase
constexpr int kInterFirst = 2;  // the rail rings (allreduce: their reduce-scatter hops); alltoall's node pairs
constexpr int kInterGather = 4;  // allreduce: the allgather hops of the rail rings
constexpr int kIntraLast = 6;   // allreduce: the closing intra-node allgather

int by_direction(int phase, int from, int to) { return phase + (from < to ? 0 : 1); }
int ring(int phase, int from_node) { return phase + from_node % 2; }

// Allreduce pieces: rail l's shard is chunks [l N k, (l + 1) N k), k pieces of N chunks (one segment
// per node, piece-major), and every phase works piece by piece, so within one tile piece j crosses the
// network while piece j + 1 is still being reduced inside the node (with k = 1 the tile is the only
// pipeline; at 256 MB a Simple tile is a whole chunk, so nothing would overlap).
int piece_base(const Grid& G, int l, int j) { return (l * G.k + j) * G.nodes; }

// Rail l's allreduce of one piece (N one-chunk segments from `base` on every node of the rail).
// Ring: 2(N-1) dependent hops of one segment each.
void rail_ring(Program& prog, const Grid& G, int l, int base) {
  const int N = G.nodes;
  for (int hop = 0; hop + 1 < N; ++hop)
    for (int c = 0; c < N; ++c) {
      const int from = (c + 1 + hop) % N;
      prog.send_reduce(in(G.rank(from, l), base + c), in(G.rank((from + 1) % N, l), base + c), ring(kInterFirst, from));
    }
  for (int hop = 0; hop + 1 < N; ++hop)
    for (int c = 0; c < N; ++c) {
      const int from = (c + hop) % N;
      prog.send(in(G.rank(from, l), base + c), in(G.rank((from + 1) % N, l), base + c), ring(kInterGather, from));
    }
}

// Recursive halving then doubling (Rabenseifner; Thakur et al., IJHPCA 2005) over the rail's nodes:
// the same NIC bytes as the ring, 2(N-1)/N of the piece, in 2 log2 N exchanges instead of 2(N-1)
// hops, so a piece pays the network latency 8 times at 16 nodes instead of 30. At two nodes both are
// the same single exchange, so the ring (and its files) stays.
bool rail_halving_fits(int nodes) { return nodes > 2 && (nodes & (nodes - 1)) == 0; }

void rail_halving_doubling(Program& prog, const Grid& G, int l, int base) {
  const int N = G.nodes;
  // Halving: at distance d node n keeps the half of its current range whose d-bit matches its own
  // and adds its partner's copy into it; after the last step node n holds segment n reduced.
  for (int d = N / 2; d >= 1; d /= 2)
    for (int n = 0; n < N; ++n) {
      const int partner = n ^ d, lo = n & ~(2 * d - 1), sent = base + lo + ((partner & d) ? d : 0);
      prog.send_reduce(in(G.rank(n, l), sent, d), in(G.rank(partner, l), sent, d), by_direction(kInterFirst, n, partner));
    }
  // Doubling: the reverse exchanges hand every node its partner's reduced range.
  for (int d = 1; d < N; d *= 2)
    for (int n = 0; n < N; ++n) {
      const int partner = n ^ d, own = base + (n & ~(d - 1));
      prog.send(in(G.rank(n, l), own, d), in(G.rank(partner, l), own, d), by_direction(kInterGather, n, partner));
    }
}

void hier_allreduce(Program& prog, const Grid& G) {
  const int N = G.nodes;
  for (int n = 0; n < N; ++n) {
    for (int j = 0; j < G.k; ++j)
      for (int a = 0; a < G.g; ++a)
        for (int l = 0; l < G.g; ++l)
          if (l != a)
            prog.send(in(G.rank(n, a), piece_base(G, l, j), N), scratch(G.rank(n, l), piece_base(G, a, j), N), by_direction(kIntraFirst, a, l));
    for (int j = 0; j < G.k; ++j)
      for (int l = 0; l < G.g; ++l)
        for (int a = 0; a < G.g; ++a)
          if (a != l) prog.reduce(scratch(G.rank(n, l), piece_base(G, a, j), N), in(G.rank(n, l), piece_base(G, l, j), N));
  }
  for (int j = 0; j < G.k; ++j)
    for (int l = 0; l < G.g; ++l) {
      if (rail_halving_fits(N)) rail_halving_doubling(prog, G, l, piece_base(G, l, j));
      else rail_ring(prog, G, l, piece_base(G, l, j));
    }
  for (int n = 0; n < N; ++n)
    for (int j = 0; j < G.k; ++j)
      for (int l = 0; l < G.g; ++l)
        for (int a = 0; a < G.g; ++a)
          if (a != l) prog.send(in(G.rank(n, l), piece_base(G, l, j), N), in(G.rank(n, a), piece_base(G, l, j), N), by_direction(kIntraLast, l, a));
}

void hier_allgather(Program& prog, const Grid& G) {
  const int N = G.nodes, k = G.k;
  for (int a = 0; a < G.g; ++a)
    for (int hop = 0; hop + 1 < N; ++hop)
      for (int x = 0; x < N; ++x) {
        const int owner = G.rank(x, a), from = G.rank((x + hop) % N, a), to = G.rank((x + hop + 1) % N, a);
        prog.send(hop == 0 ? in(from, 0, k) : out(from, owner * k, k), out(to, owner * k, k), ring(kInterFirst, (x + hop) % N));
      }
  for (int n = 0; n < N; ++n)
    for (int a = 0; a < G.g; ++a)
      for (int m = 0; m < N; ++m)
        for (int b = 0; b < G.g; ++b) {
          if (b == a) continue;
          const int owner = G.rank(m, a), from = G.rank(n, a);
          prog.send(m == n ? in(from, 0, k) : out(from, owner * k, k), out(G.rank(n, b), owner * k, k), by_direction(kIntraFirst, a, b));
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
          if (l != a) prog.send(in(G.rank(n, a), G.rank(m, l) * k, k), scratch(G.rank(n, l), slot(a, m), k), by_direction(kIntraFirst, a, l));
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
        prog.send_reduce(scratch(G.rank((x + 1 + hop) % N, l), slot(l, x), k), scratch(G.rank((x + 2 + hop) % N, l), slot(l, x), k),
                         ring(kInterFirst, (x + 1 + hop) % N));
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
            else prog.send(in(self, dest * k, k), out(dest, self * k, k), by_direction(kIntraFirst, a, b));
          } else if (b == a) {
            prog.copy(in(self, dest * k, k), scratch(self, (m * g + a) * k, k));
          } else {
            prog.send(in(self, dest * k, k), scratch(G.rank(n, b), (m * g + a) * k, k), by_direction(kIntraFirst, a, b));
          }
        }
  // Rank (n,b) holds, contiguously, the g blocks node n sends to (m,b): one message per node pair.
  for (int n = 0; n < N; ++n)
    for (int b = 0; b < g; ++b)
      for (int m = 0; m < N; ++m)
        if (m != n) prog.send(scratch(G.rank(n, b), m * g * k, g * k), out(G.rank(m, b), n * g * k, g * k), by_direction(kInterFirst, n, m));
}

}  // namespace

Support hier_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll}); !s.ok()) return s;
  const int g = req.gpus_per_node;
  if (g <= 0 || g >= req.ngpus || req.ngpus % g != 0) return {"hierarchical needs at least two nodes of equal size"};
  if (req.channels != 1) return {"hierarchical has one structure: channels must be 1"};
  // Only allreduce runs its pieces through the phases one by one; elsewhere chunks > 1 would only
  // make the blocks coarser.
  return need(req.chunks == 1 || req.collective == C::AllReduce, "hierarchical pipelines pieces (chunks) only in allreduce");
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
