// Direct family (algorithms.md §8): every rank talks to every peer in one round. One-shot allreduce
// pushes the whole buffer to every peer's scratch and reduces locally (msccl-tools allreduce_1step);
// two-shot is a direct reduce-scatter followed by a direct allgather (msccl-tools allreduce_allpairs).
// Parallelism comes from `instances`; channels and chunks stay 1.
#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

const std::vector<ir::Collective> kDirectCollectives{C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll,
                                                     C::Broadcast,  C::Reduce,    C::Gather,        C::Scatter};

// Every rank's buffer lands in scratch slot `src` of every peer, which then reduces the p-1 slots.
void one_shot_allreduce(Program& prog, int p) {
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (q != r) prog.send(in(r, 0), scratch(q, r), 0);
  for (int q = 0; q < p; ++q)
    for (int r = 0; r < p; ++r)
      if (r != q) prog.reduce(scratch(q, r), in(q, 0));
}

// Block q of every rank is sent to rank q's scratch and reduced there into input block q.
void direct_reducescatter(Program& prog, int p) {
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (q != r) prog.send(in(r, q), scratch(q, r), 0);
  for (int q = 0; q < p; ++q)
    for (int r = 0; r < p; ++r)
      if (r != q) prog.reduce(scratch(q, r), in(q, q));
}

void direct_allgather_of_blocks(Program& prog, int p) {
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (q != r) prog.send(in(r, r), in(q, r), 0);
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

}  // namespace

Support direct_supports(const GenRequest& req) {
  if (auto s = check_common(req, kDirectCollectives); !s.ok()) return s;
  return need(req.channels == 1 && req.chunks == 1, "direct uses instances for parallelism: channels and chunks must be 1");
}

ir::Algorithm direct_generate(const GenRequest& req) {
  const int p = req.ngpus;
  const std::string name = candidate_name("direct", req);
  switch (req.collective) {
    case C::AllReduce: {
      Program prog(req, name, 1, 1, true);
      one_shot_allreduce(prog, p);
      return prog.materialize();
    }
    case C::AllGather: {
      Program prog(req, name, 1, p, true);
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q)
          if (q != r) prog.send(in(r, 0), out(q, r), 0);
      return prog.materialize();
    }
    case C::ReduceScatter: {
      Program prog(req, name, p, 1, true);
      direct_reducescatter(prog, p);
      return prog.materialize();
    }
    case C::AllToAll: {
      Program prog(req, name, p, p, false);
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q) {
          if (q == r) prog.copy(in(r, r), out(r, r));
          else prog.send(in(r, q), out(q, r), 0);
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
  return need(req.channels == 1 && req.chunks == 1, "twoshot uses instances for parallelism: channels and chunks must be 1");
}

ir::Algorithm twoshot_generate(const GenRequest& req) {
  const int p = req.ngpus;
  Program prog(req, candidate_name("twoshot", req), p, p, true);
  direct_reducescatter(prog, p);
  direct_allgather_of_blocks(prog, p);
  return prog.materialize();
}

}  // namespace ccforge::search
