// Recursive doubling and halving (Thakur, Rabenseifner and Gropp, IJHPCA 2005), powers of two only:
// rd allreduce exchanges whole buffers with partner r^d and reduces (log2 p rounds); rd allgather
// doubles the held blocks each round; rhd reduce-scatter halves the held range each round, and rhd
// allreduce is Rabenseifner's halving reduce-scatter followed by the doubling allgather.
// Each round receives into fresh scratch, so no round waits for the previous one's reads.
#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

void rd_allreduce(Program& prog, int p, int k) {
  int round = 0;
  for (int d = 1; d < p; d *= 2, ++round) {
    for (int r = 0; r < p; ++r) prog.send(in(r, 0, k), scratch(r ^ d, round * k, k), 0);
    for (int r = 0; r < p; ++r) prog.reduce(scratch(r, round * k, k), in(r, 0, k));
  }
}

// Blocks of `k` chunks: rank r holds blocks [r & ~(d-1), +d) before the round with distance d.
void rd_allgather(Program& prog, int p, int k, bool blocks_in_input) {
  for (int d = 1; d < p; d *= 2) {
    for (int r = 0; r < p; ++r) {
      const int base = r & ~(d - 1);
      const ir::ChunkRef src = blocks_in_input ? in(r, base * k, d * k) : out(r, base * k, d * k);
      const ir::ChunkRef dst = blocks_in_input ? in(r ^ d, base * k, d * k) : out(r ^ d, base * k, d * k);
      // In-place allgather: rank r's own block is its input; the first round reads it from there.
      prog.send(d == 1 && !blocks_in_input ? in(r, 0, k) : src, dst, 0);
    }
  }
}

// Rank r keeps the half of its range containing r and sends the other half to r^d, which reduces it.
void rh_reducescatter(Program& prog, int p, int k) {
  int scratch_base = 0;
  for (int d = p / 2; d >= 1; d /= 2) {
    for (int r = 0; r < p; ++r) {
      const int lo = r & ~(2 * d - 1);  // current range [lo, lo + 2d) of blocks
      const int give = (r & d) ? lo : lo + d;
      prog.send(in(r, give * k, d * k), scratch(r ^ d, scratch_base, d * k), 0);
    }
    for (int r = 0; r < p; ++r) {
      const int keep = (r & ~(2 * d - 1)) + (r & d);
      prog.reduce(scratch(r, scratch_base, d * k), in(r, keep * k, d * k));
    }
    scratch_base += d * k;
  }
}

}  // namespace

Support rd_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce, C::AllGather}); !s.ok()) return s;
  if (!is_power_of_two(req.ngpus)) return {"recursive doubling needs a power-of-two rank count"};
  return need(req.channels == 1, "recursive doubling has one structure: channels must be 1");
}

ir::Algorithm rd_generate(const GenRequest& req) {
  const int p = req.ngpus, k = req.chunks;
  const std::string name = candidate_name("rd", req);
  if (req.collective == C::AllReduce) {
    Program prog(req, name, k, k, true);
    rd_allreduce(prog, p, k);
    return prog.materialize();
  }
  Program prog(req, name, k, p * k, true);
  rd_allgather(prog, p, k, false);
  return prog.materialize();
}

Support rhd_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce, C::ReduceScatter}); !s.ok()) return s;
  if (!is_power_of_two(req.ngpus)) return {"recursive halving needs a power-of-two rank count"};
  return need(req.channels == 1, "recursive halving has one structure: channels must be 1");
}

ir::Algorithm rhd_generate(const GenRequest& req) {
  const int p = req.ngpus, k = req.chunks;
  const std::string name = candidate_name("rhd", req);
  if (req.collective == C::ReduceScatter) {
    Program prog(req, name, p * k, k, true);
    rh_reducescatter(prog, p, k);
    return prog.materialize();
  }
  Program prog(req, name, p * k, p * k, true);
  rh_reducescatter(prog, p, k);
  rd_allgather(prog, p, k, true);
  return prog.materialize();
}

}  // namespace ccforge::search
