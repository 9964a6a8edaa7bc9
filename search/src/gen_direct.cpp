// Direct family (algorithms.md §8): every rank talks to every peer in one round. One-shot allreduce
// pushes the whole buffer to every peer's scratch and reduces locally (msccl-tools allreduce_1step);
// two-shot is a direct reduce-scatter followed by a direct allgather (msccl-tools allreduce_allpairs).
// Parallelism comes from `instances`; channels stay 1. For the allreduces, `chunks` cuts each reduced
// block into that many pieces whose local reductions run on as many threadblocks (pinned to their own
// channels) instead of one after another on one tb, as the published NDv4/NDv5 allpairs files do
// (ap-1pass: 8 reducing tbs per channel). Between two ranks that both send to
// each other, the two directions use two channels, so each direction gets its own threadblock: on one
// shared tb the rank whose receive comes first in program order would wait for it before sending, and
// the round would take two transfer latencies instead of one (the published NDv4/NDv5 allpairs and
// allgather files likewise use separate send and receive tbs).
#include <fmt/core.h>

#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

// Channel of the transfer from -> to in an exchange where both directions are used.
int direction(int from, int to) { return from < to ? 0 : 1; }

const std::vector<ir::Collective> kDirectCollectives{C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll,
                                                     C::Broadcast,  C::Reduce,    C::Gather,        C::Scatter};

// Reduces the p-1 copies of a k-piece block that arrived in rank q's scratch (slot r at r*k) into
// input block `block`; piece j on lane (channel) j.
void reduce_block(Program& prog, int p, int q, int block, int k) {
  for (int j = 0; j < k; ++j)
    for (int r = 0; r < p; ++r)
      if (r != q) prog.reduce(scratch(q, r * k + j), in(q, block * k + j), j);
}

// Every rank's buffer (k pieces) lands in scratch slot `r` of every peer, which then reduces.
void one_shot_allreduce(Program& prog, int p, int k) {
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (q != r) prog.send(in(r, 0, k), scratch(q, r * k, k), direction(r, q));
  for (int q = 0; q < p; ++q) reduce_block(prog, p, q, 0, k);
}

// Block q (k pieces) of every rank is sent to rank q's scratch and reduced there into input block q.
void direct_reducescatter(Program& prog, int p, int k) {
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (q != r) prog.send(in(r, q * k, k), scratch(q, r * k, k), direction(r, q));
  for (int q = 0; q < p; ++q) reduce_block(prog, p, q, q, k);
}

void direct_allgather_of_blocks(Program& prog, int p, int k) {
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (q != r) prog.send(in(r, r * k, k), in(q, r * k, k), direction(r, q));
}

void direct_rooted(Program& prog, C coll, int p) {
  for (int q = 1; q < p; ++q) {
    switch (coll) {
      case C::Broadcast: prog.send(in(0, 0), in(q, 0), 0); break;
      case C::Reduce: prog.send(in(q, 0), scratch(0, q - 1), 0); break;
      case C::Gather: prog.send(in(q, 0), out(0, q), 0); break;
      default: prog.send(in(0, q), out(q, 0), 0); break;  // scatter
    }
  }
  if (coll == C::Reduce)
    for (int q = 1; q < p; ++q) prog.reduce(scratch(0, q - 1), in(0, 0));
}

// Rank 0 (the root of the rooted ones) talks to every peer on channel 0 in every collective here, one
// tb per peer, so p-1 tbs share that channel in one direction: past the executor's limit the program
// cannot run, and declining here saves building it (at 128 ranks a build took seconds per variant
// before the builder refused it).
Support fits_tbs_per_channel(const GenRequest& req) {
  const int limit = ir::Limits{}.max_tbs_per_channel;
  return need(req.ngpus - 1 <= limit, fmt::format("rank 0 talks to its {} peers on one channel, one tb each: more "
                                                  "than the executor's {} tbs per channel and direction",
                                                  req.ngpus - 1, limit));
}

}  // namespace

Support direct_supports(const GenRequest& req) {
  if (auto s = check_common(req, kDirectCollectives); !s.ok()) return s;
  if (req.channels != 1) return {"direct uses instances for parallelism: channels must be 1"};
  if (auto s = fits_tbs_per_channel(req); !s.ok()) return s;
  return need(req.chunks == 1 || req.collective == C::AllReduce, "chunks (reduction lanes) apply to allreduce only");
}

ir::Algorithm direct_generate(const GenRequest& req) {
  const int p = req.ngpus;
  const std::string name = candidate_name("direct", req);
  switch (req.collective) {
    case C::AllReduce: {
      Program prog(req, name, req.chunks, req.chunks, true);
      one_shot_allreduce(prog, p, req.chunks);
      return prog.materialize();
    }
    case C::AllGather: {
      Program prog(req, name, 1, p, true);
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q)
          if (q != r) prog.send(in(r, 0), out(q, r), direction(r, q));
      return prog.materialize();
    }
    case C::ReduceScatter: {
      Program prog(req, name, p, 1, true);
      direct_reducescatter(prog, p, 1);
      return prog.materialize();
    }
    case C::AllToAll: {
      Program prog(req, name, p, p, false);
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q) {
          if (q == r) prog.copy(in(r, r), out(r, r));
          else prog.send(in(r, q), out(q, r), direction(r, q));
        }
      return prog.materialize();
    }
    case C::Gather: {
      Program prog(req, name, 1, p, true);
      direct_rooted(prog, req.collective, p);
      return prog.materialize();
    }
    case C::Scatter: {
      Program prog(req, name, p, 1, true);
      direct_rooted(prog, req.collective, p);
      return prog.materialize();
    }
    default: {
      Program prog(req, name, 1, 1, true);
      direct_rooted(prog, req.collective, p);
      return prog.materialize();
    }
  }
}

Support twoshot_supports(const GenRequest& req) {
  if (auto s = check_common(req, {C::AllReduce}); !s.ok()) return s;
  if (req.channels != 1) return {"twoshot uses instances for parallelism: channels must be 1"};
  return fits_tbs_per_channel(req);
}

ir::Algorithm twoshot_generate(const GenRequest& req) {
  const int p = req.ngpus;
  const int k = req.chunks;
  Program prog(req, candidate_name("twoshot", req), p * k, p * k, true);
  direct_reducescatter(prog, p, k);
  direct_allgather_of_blocks(prog, p, k);
  return prog.materialize();
}

}  // namespace ccforge::search
