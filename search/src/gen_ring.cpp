// Ring family: ring reduce-scatter / allgather / allreduce (RS then AG, Patarasuk and Yuan 2009) over
// one ring per channel, and the pipelined chain broadcast / reduce along the same orders (NCCL ring
// broadcast). Each segment is cut into req.chunks pieces sent as separate steps so that hops pipeline.
// Segments are emitted in descending order within a hop: then every rank but one per hop sends before
// it receives, so its receive of hop h sits next to its send of hop h+1 and the builder fuses them
// (rrs, rcs) as in msccl-tools' ring programs.
#include <algorithm>

#include <fmt/core.h>

#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

namespace {

using C = ir::Collective;

// Segment c of ring j runs on channel j * spread + c % spread, so that with spread > 1 each
// threadblock carries fewer steps (the published NDv4/NDv5 r48 files use 4 channels per ring).
int ring_channel(const GenRequest& req, int ring, int segment) { return ring * req.spread + segment % req.spread; }

// Chunk index of piece t of segment s on ring j, rings laid out ring-major.
struct RingLayout {
  int p, pieces;
  int index(int ring, int segment, int piece) const { return (ring * p + segment) * pieces + piece; }
};

void ring_allreduce(Program& prog, const GenRequest& req) {
  const int p = req.ngpus;
  const RingLayout lay{p, req.chunks};
  for (int j = 0; j < req.channels; ++j) {
    const auto o = ring_order(req, j);
    // Segment c is reduced along positions c+1, c+2, .., c (p-1 hops), then broadcast on around the ring.
    for (int hop = 0; hop + 1 < p; ++hop)
      for (int c = p - 1; c >= 0; --c)
        for (int t = 0; t < req.chunks; ++t) {
          const int from = o[(c + 1 + hop) % p], to = o[(c + 2 + hop) % p];
          prog.send_reduce(in(from, lay.index(j, c, t)), in(to, lay.index(j, c, t)), ring_channel(req, j, c));
        }
    for (int hop = 0; hop + 1 < p; ++hop)
      for (int c = p - 1; c >= 0; --c)
        for (int t = 0; t < req.chunks; ++t) {
          const int from = o[(c + hop) % p], to = o[(c + hop + 1) % p];
          prog.send(in(from, lay.index(j, c, t)), in(to, lay.index(j, c, t)), ring_channel(req, j, c));
        }
  }
}

// In-place allgather: rank r's contribution is output block r; the first hop reads it as input.
void ring_allgather(Program& prog, const GenRequest& req) {
  const int p = req.ngpus, per_rank = req.channels * req.chunks;
  for (int j = 0; j < req.channels; ++j) {
    const auto o = ring_order(req, j);
    for (int hop = 0; hop + 1 < p; ++hop)
      for (int x = p - 1; x >= 0; --x)
        for (int t = 0; t < req.chunks; ++t) {
          const int owner = o[x], k = j * req.chunks + t;
          const int from = o[(x + hop) % p], to = o[(x + hop + 1) % p];
          const ir::ChunkRef src = hop == 0 ? in(from, k) : out(from, owner * per_rank + k);
          prog.send(src, out(to, owner * per_rank + k), ring_channel(req, j, x));
        }
  }
}

// In-place reducescatter: block r of the input is reduced into rank r, ending on its output.
void ring_reducescatter(Program& prog, const GenRequest& req) {
  const int p = req.ngpus, per_rank = req.channels * req.chunks;
  for (int j = 0; j < req.channels; ++j) {
    const auto o = ring_order(req, j);
    for (int hop = 0; hop + 1 < p; ++hop)
      for (int x = p - 1; x >= 0; --x)
        for (int t = 0; t < req.chunks; ++t) {
          const int owner = o[x], k = owner * per_rank + j * req.chunks + t;
          const int from = o[(x + 1 + hop) % p], to = o[(x + 2 + hop) % p];
          prog.send_reduce(in(from, k), in(to, k), ring_channel(req, j, x));
        }
  }
}

// The ring order rotated so that the root (rank 0) comes first.
std::vector<int> chain_from_root(const GenRequest& req, int j) {
  auto o = ring_order(req, j);
  std::rotate(o.begin(), std::find(o.begin(), o.end(), 0), o.end());
  return o;
}

void chain_broadcast(Program& prog, const GenRequest& req) {
  for (int j = 0; j < req.channels; ++j) {
    const auto o = chain_from_root(req, j);
    for (int t = 0; t < req.chunks; ++t)
      for (std::size_t h = 0; h + 1 < o.size(); ++h) {
        const int k = j * req.chunks + t;
        prog.send(in(o[h], k), in(o[h + 1], k), j);
      }
  }
}

void chain_reduce(Program& prog, const GenRequest& req) {
  for (int j = 0; j < req.channels; ++j) {
    const auto o = chain_from_root(req, j);
    for (int t = 0; t < req.chunks; ++t)
      for (std::size_t h = o.size() - 1; h > 0; --h) {
        const int k = j * req.chunks + t;
        prog.send_reduce(in(o[h], k), in(o[h - 1], k), j);
      }
  }
}

const std::vector<ir::Collective> kRingCollectives{C::AllReduce, C::AllGather, C::ReduceScatter};
const std::vector<ir::Collective> kChainCollectives{C::Broadcast, C::Reduce};

}  // namespace

Support ring_supports(const GenRequest& req) {
  if (auto s = check_common(req, kRingCollectives); !s.ok()) return s;
  if (req.spread < 1 || req.spread > req.ngpus) return {"spread must be between 1 and the rank count"};
  // Every hop puts at least one step per piece on the tb of its segment's channel, so a tb gets at
  // least hops * chunks / spread steps: decline before building what the step limit would refuse
  // (at 128 ranks the build alone takes seconds).
  const int hops = (req.collective == C::AllReduce ? 2 : 1) * (req.ngpus - 1);
  const int fewest_steps = (hops * req.chunks + req.spread - 1) / req.spread;
  if (fewest_steps > ir::Limits{}.max_steps_per_tb)
    return {fmt::format("{} hops x {} pieces over spread {} need at least {} steps per tb, more than {} (raise spread)", hops,
                        req.chunks, req.spread, fewest_steps, ir::Limits{}.max_steps_per_tb)};
  return check_rings(req);
}

ir::Algorithm ring_generate(const GenRequest& req) {
  const int p = req.ngpus, per_ring = req.chunks;
  const std::string name = candidate_name("ring", req);
  switch (req.collective) {
    case C::AllReduce: {
      Program prog(req, name, req.channels * p * per_ring, req.channels * p * per_ring, true);
      ring_allreduce(prog, req);
      return prog.materialize();
    }
    case C::AllGather: {
      Program prog(req, name, req.channels * per_ring, p * req.channels * per_ring, true);
      ring_allgather(prog, req);
      return prog.materialize();
    }
    default: {
      Program prog(req, name, p * req.channels * per_ring, req.channels * per_ring, true);
      ring_reducescatter(prog, req);
      return prog.materialize();
    }
  }
}

Support chain_supports(const GenRequest& req) {
  if (auto s = check_common(req, kChainCollectives); !s.ok()) return s;
  return check_rings(req);
}

ir::Algorithm chain_generate(const GenRequest& req) {
  const int chunks = req.channels * req.chunks;
  Program prog(req, candidate_name("chain", req), chunks, chunks, true);
  if (req.collective == C::Broadcast) {
    chain_broadcast(prog, req);
  } else {
    chain_reduce(prog, req);
  }
  return prog.materialize();
}

}  // namespace ccforge::search
