// A provable lower bound on sim::simulate for an MSCCL algorithm, read off the structure the lowering
// (msccl_lowering.cpp) wires, ir::StepGraph, without running events. Every term is a cost the engine
// cannot avoid:
//  - capacity: the wire bytes a link (or a GPU's LL issue rate) must carry over the whole call,
//    divided by its capacity (max-min fair sharing never gives a link's flows more than that);
//  - threadblock chain: a tb's steps run one after another in every tile iteration, each paying its
//    alpha (route latency, protocol sync, LL forwarding turnaround) and pushing its bytes no faster
//    than the tb's protocol cap and the slowest link of its route allow; the chain starts no earlier
//    than the longest chain of first-iteration dependencies leading to it;
//  - threadblock period: every full tile, a tb's longest path through that tile's dependency graph from
//    its first step to its last (a tree leaf waits for the root's answer to its own send);
//  - the first iteration's longest dependency chain as a whole (latency-bound sizes);
//  - a resource's released load: no byte of a tb's transfers flows before its first send's data can
//    (the first iteration's earliest time, alpha paid), so for every time r, the load of the tbs that
//    cannot use a link (or issue rate) before r still has to pass it after r at its capacity. A chain of
//    h hops reaches its last links only after the pipeline filled, and identical tbs sharing one link
//    split it: the bound charges both (plain capacity is the case r = 0).
// Plus the MSCCL kernel's base cost, which simulate adds to every makespan. Edges the bound drops
// (buffer-slot back-pressure, bandwidth shared by flows that happen to run together) only make it lower.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "floor_graph.hpp"
#include "floor_steps.hpp"
#include "msccl_lowering.hpp"

namespace ccforge::sim {
namespace {

// Floating-point sums here and in the engine's rate updates can disagree in the last bits; the floor
// gives up this share of itself so that rounding never lifts it above the simulated time.
constexpr double kRoundingMargin = 1e-9;

// Built once per algorithm (costed steps, the first iteration's dependency graph); each size's floor
// is then linear in threadblocks and their resources, after one walk over that graph for every 8
// distinct first iterations.
class FloorModel {
 public:
  FloorModel(const topo::Topology& topo, const ir::Algorithm& algo, const SimConstants& params)
      : algo_(algo), steps_(topo, algo, params), graph_(steps_) {}

  // The floor at each of `chunk_bytes`. Calls below a tile per chunk each have their own first
  // iteration, all from one pass over the graph; larger ones share the full tile's.
  std::vector<SimTime> floors(const std::vector<ByteCount>& chunk_bytes) {
    const ByteCount tile = msccl_iteration_bytes(algo_.protocol);
    std::vector<double> firsts;  // distinct bytes per chunk of the first iterations needed
    for (ByteCount c : chunk_bytes) firsts.push_back(static_cast<double>(std::min(c, tile)));
    std::sort(firsts.begin(), firsts.end());
    firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
    const std::vector<FloorGraph::FirstIteration> first = graph_.first_iterations(firsts);
    std::vector<std::vector<Release>> released;
    for (const FloorGraph::FirstIteration& f : first) released.push_back(releases(f));
    std::vector<SimTime> out;
    for (ByteCount c : chunk_bytes) {
      const auto at = static_cast<std::size_t>(
          std::lower_bound(firsts.begin(), firsts.end(), static_cast<double>(std::min(c, tile))) - firsts.begin());
      out.push_back(floor(c, first[at], released[at]));
    }
    return out;
  }

 private:
  // A resource's load still to pass after `at`: the tbs whose data cannot flow before `at`, in seconds
  // per chunk byte at the resource's capacity.
  struct Release {
    double at, s_per_byte;
  };

  // Per resource, its users by descending first-flow time, each with the load of it and every later
  // one: the bound at `total` bytes per chunk is the largest at + s_per_byte * total.
  std::vector<Release> releases(const FloorGraph::FirstIteration& first) const {
    std::vector<Release> out, one;
    for (std::size_t r = 0; r < steps_.resources(); ++r) {
      one.clear();
      for (const FloorSteps::ResourceUse& u : steps_.users(r)) one.push_back({first.tb_first_flow[u.tb], u.s_per_byte});
      std::sort(one.begin(), one.end(), [](const Release& a, const Release& b) { return a.at > b.at; });
      double load = 0.0;
      for (std::size_t k = 0; k < one.size(); ++k) {
        load += one[k].s_per_byte;
        // Users released together count once, with all their load.
        if (k + 1 == one.size() || one[k + 1].at != one[k].at) out.push_back({one[k].at, load});
      }
    }
    return out;
  }

  // `first`: the first iteration at min(chunk_bytes, tile) bytes per chunk (a call of at least a tile
  // per chunk starts with a full tile: the same first iteration every time).
  SimTime floor(ByteCount chunk_bytes, const FloorGraph::FirstIteration& first, const std::vector<Release>& released) {
    const ByteCount tile = msccl_iteration_bytes(algo_.protocol);
    const ByteCount iters = (chunk_bytes + tile - 1) / tile;
    const double total = static_cast<double>(chunk_bytes);
    double bound = steps_.capacity_s_per_byte() * total;
    bound = std::max(bound, first.longest);
    for (const Release& r : released) bound = std::max(bound, r.at + r.s_per_byte * total);
    if (iters > 1 && tile_periods_.empty()) tile_periods_ = graph_.tile_periods(static_cast<double>(tile));
    const double last_tile = total - static_cast<double>(iters - 1) * static_cast<double>(tile);
    for (std::size_t t = 0; t < steps_.chains().size(); ++t) {
      bound = std::max(bound, first.tb_start[t] + steps_.own_chain(t, static_cast<double>(iters), total));
      // Every full tile passes through the tb's period, the last tile at least through its own steps.
      if (iters > 1)
        bound = std::max(bound, first.tb_start[t] + static_cast<double>(iters - 1) * tile_periods_[t] +
                                    steps_.own_chain(t, 1.0, last_tile));
    }
    const SimTime base = steps_.runtime().base;
    const double ps = std::floor(bound * (1.0 - kRoundingMargin) * 1e12);
    // Past what SimTime holds (a profile with absurd rates): claim only the base, still a bound.
    if (!(ps < static_cast<double>(SimTime::max().ps / 2))) return base;
    return SimTime{static_cast<std::int64_t>(std::max(ps, 0.0))} + base;
  }

  const ir::Algorithm& algo_;
  FloorSteps steps_;
  FloorGraph graph_;
  std::vector<double> tile_periods_;  // per tb, tile_periods at a full tile; empty until a call needs it
};

}  // namespace

std::vector<SimTime> time_floors(const topo::Topology& topo, const ir::Algorithm& algo, const std::vector<CallSpec>& calls,
                                 const SimParams& params) {
  check_gpu_count(topo, algo);
  FloorModel model(topo, algo, params.constants);
  std::vector<ByteCount> chunk_bytes;
  for (const CallSpec& call : calls)
    chunk_bytes.push_back(ir::executor_bytes(algo.collective, algo.ngpus, call.bytes) /
                          static_cast<ByteCount>(std::max(algo.nchunksperloop, 1)));
  return model.floors(chunk_bytes);
}

}  // namespace ccforge::sim
