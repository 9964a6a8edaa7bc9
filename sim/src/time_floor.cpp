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
//  - the first iteration's longest dependency chain as a whole (latency-bound sizes).
// Plus the MSCCL kernel's base cost, which simulate adds to every makespan. Edges the bound drops
// (buffer-slot back-pressure, bandwidth shared by flows that happen to run together) only make it lower.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "ccforge/ir/step_graph.hpp"
#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "msccl_lowering.hpp"

namespace ccforge::sim {
namespace {

// Floating-point sums here and in the engine's rate updates can disagree in the last bits; the floor
// gives up this share of itself so that rounding never lifts it above the simulated time.
constexpr double kRoundingMargin = 1e-9;

enum class Work { None, Transfer, Copy, Reduce };

// What a step costs once it may start: a fixed part every tile iteration pays again (a send's alpha
// and forwarding turnaround) and a part proportional to the bytes it moves.
struct StepCost {
  Work work = Work::None;
  double fixed_s = 0.0;
  double rate = 0.0;  // Transfer: the most wire bytes/s its flow can get
};

// Built once per algorithm (steps, costs, the first iteration's dependency graph); floor() is then
// linear in threadblocks, plus one pass over that graph for calls smaller than a tile per chunk.
class FloorModel {
 public:
  FloorModel(const topo::Topology& topo, const ir::Algorithm& algo, const ParamTable& params)
      : topo_(topo), algo_(algo), params_(params), arch_(topo.gpu(0).arch), steps_(algo) {
    costs_ = msccl_protocol_costs(params, algo.protocol, arch_, msccl_runtime(topo));
    runtime_ = msccl_runtime_costs(params, msccl_runtime(topo));
    capacity_ = link_capacities(topo, params);
    cost_steps();
    capacity_s_per_byte_ = capacity_bound(1.0);
    sum_chains();
    build_first_iteration_graph();
  }

  SimTime floor(ByteCount chunk_bytes) {
    const ByteCount tile = msccl_iteration_bytes(algo_.protocol);
    const ByteCount iters = (chunk_bytes + tile - 1) / tile;
    const double total = static_cast<double>(chunk_bytes);
    double bound = capacity_s_per_byte_ * total;
    // A call of at least a tile per chunk starts with a full tile: the same first iteration every time.
    if (chunk_bytes < tile) {
      run_first_iteration(total, first_);
    } else if (!full_tile_first_) {
      full_tile_first_.emplace(FirstIteration{});  // clang 14 rejects emplace() for a nested struct with member initializers
      run_first_iteration(static_cast<double>(tile), *full_tile_first_);
    }
    const FirstIteration& first = chunk_bytes < tile ? first_ : *full_tile_first_;
    bound = std::max(bound, first.longest);
    if (iters > 1 && tile_periods_.empty()) tile_periods_ = tile_periods(static_cast<double>(tile));
    const double last_tile = total - static_cast<double>(iters - 1) * static_cast<double>(tile);
    for (std::size_t t = 0; t < sums_.size(); ++t) {
      const ChainSums& c = sums_[t];
      bound = std::max(bound, first.tb_start[t] + own_chain(c, static_cast<double>(iters), total));
      // Every full tile passes through the tb's period, the last tile at least through its own steps.
      if (iters > 1)
        bound = std::max(bound, first.tb_start[t] + static_cast<double>(iters - 1) * tile_periods_[t] +
                                    own_chain(c, 1.0, last_tile));
    }
    const double ps = std::floor(bound * (1.0 - kRoundingMargin) * 1e12);
    // Past what SimTime holds (a profile with absurd rates): claim only the base, still a bound.
    if (!(ps < static_cast<double>(SimTime::max().ps / 2))) return runtime_.base;
    return SimTime{static_cast<std::int64_t>(std::max(ps, 0.0))} + runtime_.base;
  }

 private:
  struct Entry {
    int rank, tb, step;
    ir::OpType type;
    double count;  // chunks the step moves per tile
    StepCost cost;
  };

  // Seconds of a step's byte-proportional part for `chunk_bytes` of each of its chunks: local work as
  // costs.cpp charges it, a transfer's wire bytes at its ceiling rate.
  double work_seconds(const Entry& e, double chunk_bytes) const {
    const double bytes = chunk_bytes * e.count;
    switch (e.cost.work) {
      case Work::Transfer: return e.cost.rate > 0.0 ? bytes / costs_.wire_efficiency / e.cost.rate : 0.0;
      case Work::Copy: return local_copy_time(params_, arch_, bytes).seconds();
      case Work::Reduce: return local_reduce_time(params_, arch_, bytes).seconds();
      case Work::None: break;
    }
    return 0.0;
  }

  bool valid_peer(int rank, int peer) const { return peer >= 0 && peer < algo_.ngpus && peer != rank; }

  double link_rate(const topo::Route& route) const {
    double rate = costs_.tb_bytes_per_s;
    for (LinkId l : route.links) rate = std::min(rate, capacity_[l.v]);
    if (costs_.gpu_bytes_per_s > 0.0) rate = std::min(rate, costs_.gpu_bytes_per_s);
    return rate;
  }

  // One entry per step, tb by tb in the lowering's order (ranks, tbs, steps).
  void cost_steps() {
    // Ranks and tbs by position (the checker ties rank and tb ids to them).
    for (std::size_t r = 0; r < algo_.gpus.size(); ++r) {
      const int rank = static_cast<int>(r);
      for (std::size_t b = 0; b < algo_.gpus[r].tbs.size(); ++b) {
        const ir::ThreadBlock& tb = algo_.gpus[r].tbs[b];
        std::vector<Entry> chain;
        for (std::size_t s = 0; s < tb.steps.size(); ++s) {
          const ir::Step& step = tb.steps[s];
          Entry e{rank, static_cast<int>(b), static_cast<int>(s), step.type, static_cast<double>(std::max(step.count, 0)), {}};
          if (ir::op_sends(step.type) && valid_peer(rank, tb.send_peer)) {
            const topo::Route& route = topo_.route(rank, tb.send_peer);
            // Always with the protocol sync: MSCCL steps are never later slices of a pipelined step.
            SimTime fixed = transfer_alpha(costs_, route);
            if (forwards_per_line(algo_.protocol) && ir::op_receives(step.type)) fixed += runtime_.line_forward;
            e.cost = {Work::Transfer, fixed.seconds(), link_rate(route)};
          } else if (step.type == ir::OpType::Copy) {
            e.cost.work = Work::Copy;
          } else if (step.type == ir::OpType::Reduce || step.type == ir::OpType::RecvReduceCopy) {
            e.cost.work = Work::Reduce;
          }
          chain.push_back(e);
        }
        chains_.push_back(std::move(chain));
      }
    }
  }

  // Wire bytes per link (and per GPU issue rate) over the whole call, over capacity; the most loaded.
  double capacity_bound(double total) const {
    std::vector<double> load(capacity_.size(), 0.0);
    std::vector<double> issued(static_cast<std::size_t>(algo_.ngpus), 0.0);
    for (const std::vector<Entry>& chain : chains_) {
      for (const Entry& e : chain) {
        if (e.cost.work != Work::Transfer) continue;
        const int peer = algo_.gpus[e.rank].tbs[e.tb].send_peer;
        const double wire = total * e.count / costs_.wire_efficiency;
        for (LinkId l : topo_.route(e.rank, peer).links) load[l.v] += wire;
        issued[e.rank] += wire;
      }
    }
    double bound = 0.0;
    for (std::size_t l = 0; l < load.size(); ++l)
      if (capacity_[l] > 0.0) bound = std::max(bound, load[l] / capacity_[l]);
    if (costs_.gpu_bytes_per_s > 0.0)
      for (double w : issued) bound = std::max(bound, w / costs_.gpu_bytes_per_s);
    return bound;
  }

  // Per tb, what its steps cost over the whole call: alphas per iteration, transfer seconds per chunk
  // byte at their ceiling rates, chunks copied and reduced.
  struct ChainSums {
    double fixed_s = 0.0, transfer_s_per_byte = 0.0, copy_chunks = 0.0, reduce_chunks = 0.0;
  };
  void sum_chains() {
    for (const std::vector<Entry>& chain : chains_) {
      ChainSums c;
      for (const Entry& e : chain) {
        c.fixed_s += e.cost.fixed_s;
        if (e.cost.work == Work::Transfer) c.transfer_s_per_byte += work_seconds(e, 1.0);
        if (e.cost.work == Work::Copy) c.copy_chunks += e.count;
        if (e.cost.work == Work::Reduce) c.reduce_chunks += e.count;
      }
      sums_.push_back(c);
    }
  }

  // A tb's steps over `iterations` tiles holding `bytes` per chunk in all: alphas per iteration, local
  // work as costs.cpp charges it per iteration (one charge for the sum is never more).
  double own_chain(const ChainSums& c, double iterations, double bytes) const {
    return iterations * c.fixed_s + bytes * c.transfer_s_per_byte +
           local_copy_time(params_, arch_, bytes * c.copy_chunks).seconds() +
           local_reduce_time(params_, arch_, bytes * c.reduce_chunks).seconds();
  }

  // Per tb, its period: the longest path through one iteration's graph (the one build_first_iteration_graph
  // wires, with `tile` bytes per chunk) from its first step's start to its last step's end. Why each
  // iteration pays it: the lowering makes a tb's first step of iteration i+1 wait for its last step of
  // iteration i (msccl_lowering.cpp, last_of_tb), and every edge of that graph holds in every
  // iteration, not only the first: tb order, depid/deps and the k-th send -> k-th receive pairing are
  // wired per iteration among that iteration's own steps. So in each full-tile iteration the tb's
  // last step ends no earlier than its first step's start plus this path, each step on it costing at
  // least its alpha and its bytes at its ceiling rate. It is the tb's own chain unless its steps wait
  // on other tbs that in turn wait on its earlier steps (a tree allreduce: a leaf's receive from its
  // parent waits for the root's reduction of the leaf's own send of the same tile). Paths through steps
  // on a dependency cycle (not in order_) are left out, which only shortens them.
  // Each tb costs a pass over the steps between its first and last in topological order: a large ring
  // spans nearly the whole graph for every tb. So tbs are taken by ascending span until
  // kPeriodPassesPerAlgorithm whole-graph passes are spent; a tb left out keeps 0 (its own chain, a
  // separate term, still bounds it). A cost limit, not a model constant: it only loosens the bound.
  std::vector<double> tile_periods(double tile) {
    constexpr double kUnreached = -std::numeric_limits<double>::infinity();
    constexpr std::size_t kPeriodPassesPerAlgorithm = 4;
    std::vector<std::size_t> position(entry_.size(), order_.size());
    for (std::size_t k = 0; k < order_.size(); ++k) position[order_[k]] = k;
    // A path longer than the tb's own chain leaves it after some step and re-enters at a later one: per
    // tb, its first step with an edge out to another tb and its last step with one in from another.
    std::vector<std::size_t> tb_of(entry_.size());
    for (std::size_t t = 0; t < chains_.size(); ++t)
      for (std::size_t s = 0; s < chains_[t].size(); ++s) tb_of[tb_first_step_[t] + s] = t;
    std::vector<std::size_t> first_out(chains_.size(), entry_.size()), last_in(chains_.size(), 0);
    for (std::size_t i = 0; i < entry_.size(); ++i) {
      for (std::size_t x = edge_first_[i]; x < edge_first_[i + 1]; ++x) {
        const std::size_t from = edges_[x].from;
        if (tb_of[from] == tb_of[i]) continue;
        first_out[tb_of[from]] = std::min(first_out[tb_of[from]], from);
        last_in[tb_of[i]] = std::max(last_in[tb_of[i]], i);
      }
    }
    std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> spans;  // (steps spanned, tb, first position)
    for (std::size_t t = 0; t < chains_.size(); ++t) {
      if (chains_[t].empty() || first_out[t] >= last_in[t]) continue;  // its period is its own chain
      const std::size_t from = position[tb_first_step_[t]], to = position[tb_first_step_[t] + chains_[t].size() - 1];
      if (to >= order_.size() || from >= order_.size()) continue;
      spans.emplace_back(to - from + 1, t, from);
    }
    std::sort(spans.begin(), spans.end());
    std::vector<double> periods(chains_.size(), 0.0);
    std::size_t budget = kPeriodPassesPerAlgorithm * (order_.size() + edges_.size());
    for (const auto& [span, t, from] : spans) {
      if (span > budget) break;
      budget -= span;
      const std::size_t to = from + span - 1;
      // Steps between the two in topological order are all a path from one to the other can visit.
      for (std::size_t k = from; k <= to; ++k) {
        const std::size_t i = order_[k];
        double begin = k == from ? 0.0 : kUnreached, finish_after = kUnreached;
        if (k != from) {
          for (std::size_t x = edge_first_[i]; x < edge_first_[i + 1]; ++x) {
            const Edge& e = edges_[x];
            if (position[e.from] < from || position[e.from] > to) continue;
            const double at = (e.from_head ? head_[e.from] : end_[e.from]) + e.extra;
            double& bound = e.to_end ? finish_after : begin;
            bound = std::max(bound, at);
          }
        }
        head_[i] = begin + entry_[i]->cost.fixed_s;
        end_[i] = std::max(head_[i] + work_seconds(*entry_[i], tile), finish_after);
      }
      periods[t] = std::max(end_[order_[to]], 0.0);
    }
    return periods;
  }

  // The first tile iteration as the lowering wires it, along the step graph: tb order, depid/deps
  // through a flag handoff, a send feeding its matched receive (cut-through from the first line where
  // the receiver forwards per line). Steps are numbered tb by tb, as the graph's nodes; edges lead into
  // a step's start, or into its end (a forwarding receive ends only after the incoming data is through).
  struct Edge {
    std::size_t from;
    bool from_head;  // the sender's first line, not its end
    double extra;    // seconds added on the edge (flag handoff)
    bool to_end;
  };
  void build_first_iteration_graph() {
    std::size_t n = 0;
    for (const auto& chain : chains_) {
      tb_first_step_.push_back(n);
      for (const Entry& e : chain) entry_.push_back(&e);
      n += chain.size();
    }
    std::vector<std::vector<Edge>> in(n);
    const bool per_line = forwards_per_line(algo_.protocol);
    for (std::size_t i = 0; i < n; ++i) {
      const int node = static_cast<int>(i);
      if (entry_[i]->step > 0) in[i].push_back({i - 1, false, 0.0, false});
      const int dependee = steps_.dependee(node);
      if (dependee >= 0) in[i].push_back({static_cast<std::size_t>(dependee), false, runtime_.dep_handoff.seconds(), false});
      const int sender = steps_.matched_send(node);
      if (sender < 0) continue;
      const auto snd = static_cast<std::size_t>(sender);
      if (per_line && ir::op_sends(entry_[i]->type)) {
        in[i].push_back({snd, true, 0.0, false});
        in[i].push_back({snd, false, 0.0, true});
      } else {
        in[i].push_back({snd, false, 0.0, false});
      }
    }
    // Topological order (Kahn); steps on a dependency cycle are left out, which only lowers the bound
    // (simulate reports such an algorithm as a deadlock).
    std::vector<std::size_t> pending(n, 0);
    std::vector<std::vector<std::size_t>> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      pending[i] = in[i].size();
      for (const Edge& e : in[i]) out[e.from].push_back(i);
    }
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
      if (pending[i] == 0) ready.push_back(i);
    edge_first_.assign(n + 1, 0);
    while (!ready.empty()) {
      const std::size_t i = ready.back();
      ready.pop_back();
      order_.push_back(i);
      for (std::size_t j : out[i])
        if (--pending[j] == 0) ready.push_back(j);
    }
    for (std::size_t i = 0; i < n; ++i) {
      edge_first_[i + 1] = edge_first_[i] + in[i].size();
      edges_.insert(edges_.end(), in[i].begin(), in[i].end());
    }
    start_.assign(n, 0.0);
    head_.assign(n, 0.0);
    end_.assign(n, 0.0);
  }

  // Earliest times in the first iteration with `tile` bytes per chunk: per tb when its first step may
  // start, and the latest step end.
  struct FirstIteration {
    std::vector<double> tb_start;
    double longest = 0.0;
  };
  void run_first_iteration(double tile, FirstIteration& out) {
    out.longest = 0.0;
    for (std::size_t i : order_) {
      double begin = 0.0, finish_after = 0.0;
      for (std::size_t k = edge_first_[i]; k < edge_first_[i + 1]; ++k) {
        const Edge& e = edges_[k];
        const double t = (e.from_head ? head_[e.from] : end_[e.from]) + e.extra;
        double& bound = e.to_end ? finish_after : begin;
        bound = std::max(bound, t);
      }
      start_[i] = begin;
      head_[i] = begin + entry_[i]->cost.fixed_s;
      end_[i] = std::max(head_[i] + work_seconds(*entry_[i], tile), finish_after);
      out.longest = std::max(out.longest, end_[i]);
    }
    out.tb_start.assign(chains_.size(), 0.0);
    for (std::size_t t = 0; t < chains_.size(); ++t)
      if (!chains_[t].empty()) out.tb_start[t] = start_[tb_first_step_[t]];
  }

  const topo::Topology& topo_;
  const ir::Algorithm& algo_;
  const ParamTable& params_;
  topo::GpuArch arch_;
  ir::StepGraph steps_;
  ProtocolCosts costs_;
  MscclRuntimeCosts runtime_;
  std::vector<double> capacity_;           // per topology link, as Lowering::run gives the engine
  std::vector<std::vector<Entry>> chains_;  // per tb (ranks, then tbs), its steps
  double capacity_s_per_byte_ = 0.0;        // the capacity bound per chunk byte
  std::vector<ChainSums> sums_;             // per tb
  std::vector<const Entry*> entry_;         // per step, numbered tb by tb
  std::vector<std::size_t> tb_first_step_;  // per tb
  std::vector<Edge> edges_;                 // into each step: edges_[edge_first_[i] .. edge_first_[i + 1])
  std::vector<std::size_t> edge_first_;
  std::vector<std::size_t> order_;          // steps in topological order
  std::vector<double> start_, head_, end_;  // per step, scratch of run_first_iteration
  FirstIteration first_;                    // of a call smaller than a tile per chunk
  std::optional<FirstIteration> full_tile_first_;
  std::vector<double> tile_periods_;        // per tb, tile_periods at a full tile; empty until a call needs it
};

}  // namespace

std::vector<SimTime> time_floors(const topo::Topology& topo, const ir::Algorithm& algo, const std::vector<CallSpec>& calls,
                                 const SimParams& params) {
  check_gpu_count(topo, algo);
  FloorModel model(topo, algo, params.table);
  std::vector<SimTime> floors;
  for (const CallSpec& call : calls) {
    const ByteCount chunk_bytes = ir::executor_bytes(algo.collective, algo.ngpus, call.bytes) /
                                  static_cast<ByteCount>(std::max(algo.nchunksperloop, 1));
    floors.push_back(model.floor(chunk_bytes));
  }
  return floors;
}

}  // namespace ccforge::sim
