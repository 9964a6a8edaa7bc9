// Bruck et al. 1997 (IEEE TPDS "Efficient algorithms for all-to-all communications in multiport
// message-passing systems"): ceil(log2 p) rounds for any p. Allgather: in the round with distance d
// rank r forwards the min(d, p-d) blocks it holds (r, r+1, ..) to rank r-d. Alltoall: the block from
// r to r+j travels through the rounds where bit k of j is set, 2^k ranks per round; the rotations of
// the original are replaced by addressing the final output slot directly.
#include <algorithm>

#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

int mod(int a, int p) { return ((a % p) + p) % p; }

// In-place allgather with blocks of k chunks; a run of blocks that wraps past p-1 goes as two sends.
void bruck_allgather(Program& prog, int p, int k) {
  for (int d = 1; d < p; d *= 2) {
    const int count = std::min(d, p - d);
    for (int r = 0; r < p; ++r) {
      const int to = mod(r - d, p);
      const int first = std::min(count, p - r);  // blocks r .. r+first-1 before wrapping
      prog.send(d == 1 ? in(r, 0, k) : out(r, r * k, first * k), out(to, r * k, first * k), 0);
      if (first < count) prog.send(out(r, 0, (count - first) * k), out(to, 0, (count - first) * k), 0);
    }
  }
}

void bruck_alltoall(Program& prog, int p, int k) {
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  for (int r = 0; r < p; ++r) prog.copy(in(r, r * k, k), out(r, r * k, k));
  // Where each block (origin o, offset j) sits now: rank and chunk reference.
  std::vector<std::vector<ir::ChunkRef>> at(p, std::vector<ir::ChunkRef>(p));
  for (int o = 0; o < p; ++o)
    for (int j = 1; j < p; ++j) at[o][j] = in(o, mod(o + j, p) * k, k);
  for (int round = 0; round < rounds; ++round) {
    const int d = 1 << round;
    for (int o = 0; o < p; ++o)
      for (int j = 1; j < p; ++j) {
        if (!(j & d)) continue;
        const int holder = at[o][j].rank, next = mod(holder + d, p);
        // A holder keeps exactly one block per offset j, so (round, j) names a unique scratch slot.
        const bool last_hop = (j >> (round + 1)) == 0;
        const ir::ChunkRef dst = last_hop ? out(next, o * k, k) : scratch(next, (round * p + j) * k, k);
        prog.send(at[o][j], dst, 0);
        at[o][j] = dst;
      }
  }
}

}  // namespace

Support bruck_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllGather, C::AllToAll}); !s.ok()) return s;
  return need(req.channels == 1, "bruck has one structure: channels must be 1");
}

ir::Algorithm bruck_generate(const GenRequest& req) {
  const int p = req.ngpus, k = req.chunks;
  const std::string name = candidate_name("bruck", req);
  if (req.collective == C::AllGather) {
    Program prog(req, name, k, p * k, true);
    bruck_allgather(prog, p, k);
    return prog.materialize();
  }
  Program prog(req, name, p * k, p * k, false);
  bruck_alltoall(prog, p, k);
  return prog.materialize();
}

}  // namespace ccforge::search
