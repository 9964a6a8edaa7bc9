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

// Built once per algorithm (steps, costs, the first iteration's dependency graph); each size's floor is
// then linear in threadblocks, after one walk over that graph for every 8 distinct first iterations.
class FloorModel {
 public:
  // Earliest times in the first iteration at some bytes per chunk: per tb when its first step may
  // start, and the latest step end.
  struct FirstIteration {
    std::vector<double> tb_start;
    double longest = 0.0;
  };

  FloorModel(const topo::Topology& topo, const ir::Algorithm& algo, const ParamTable& params)
      : topo_(topo), algo_(algo), arch_(topo.gpu(0).arch), hbm_(hbm_bandwidth(params, arch_)), steps_(algo) {
    costs_ = msccl_protocol_costs(params, algo.protocol, arch_, msccl_runtime(topo));
    runtime_ = msccl_runtime_costs(params, msccl_runtime(topo));
    capacity_ = link_capacities(topo, params);
    cost_steps();
    capacity_s_per_byte_ = capacity_bound(1.0);
    sum_chains();
    build_first_iteration_graph();
  }

  // The floor at each of `chunk_bytes`. Calls below a tile per chunk each have their own first
  // iteration, all from one pass over the graph (run_first_iterations); larger ones share the full tile's.
  std::vector<SimTime> floors(const std::vector<ByteCount>& chunk_bytes) {
    const ByteCount tile = msccl_iteration_bytes(algo_.protocol);
    std::vector<double> firsts;  // distinct bytes per chunk of the first iterations needed
    for (ByteCount c : chunk_bytes) firsts.push_back(static_cast<double>(std::min(c, tile)));
    std::sort(firsts.begin(), firsts.end());
    firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
    const std::vector<FirstIteration> first = run_first_iterations(firsts);
    std::vector<SimTime> out;
    for (ByteCount c : chunk_bytes) {
      const auto at = std::lower_bound(firsts.begin(), firsts.end(), static_cast<double>(std::min(c, tile)));
      out.push_back(floor(c, first[static_cast<std::size_t>(at - firsts.begin())]));
    }
    return out;
  }

 private:
  // `first`: the first iteration at min(chunk_bytes, tile) bytes per chunk (a call of at least a tile
  // per chunk starts with a full tile: the same first iteration every time).
  SimTime floor(ByteCount chunk_bytes, const FirstIteration& first) {
    const ByteCount tile = msccl_iteration_bytes(algo_.protocol);
    const ByteCount iters = (chunk_bytes + tile - 1) / tile;
    const double total = static_cast<double>(chunk_bytes);
    double bound = capacity_s_per_byte_ * total;
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
      case Work::Copy: return local_copy_time(hbm_, bytes).seconds();
      case Work::Reduce: return local_reduce_time(hbm_, bytes).seconds();
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
           local_copy_time(hbm_, bytes * c.copy_chunks).seconds() +
           local_reduce_time(hbm_, bytes * c.reduce_chunks).seconds();
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
  // on a dependency cycle (not in topological order) are left out, which only shortens them.
  // Each tb costs a pass over the steps between its first and last in topological order: a large ring
  // spans nearly the whole graph for every tb. So tbs are taken by ascending span until
  // kPeriodPassesPerAlgorithm whole-graph passes are spent; a tb left out keeps 0 (its own chain, a
  // separate term, still bounds it). A cost limit, not a model constant: it only loosens the bound.
  std::vector<double> tile_periods(double tile) {
    constexpr double kUnreached = -std::numeric_limits<double>::infinity();
    constexpr std::size_t kPeriodPassesPerAlgorithm = 4;
    const std::size_t ordered = steps_in_order_.size();
    std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> spans;  // (steps spanned, tb, first position)
    for (std::size_t t = 0; t < chains_.size(); ++t) {
      if (chains_[t].empty() || !leaves_own_chain_[t]) continue;  // its period is its own chain
      const std::size_t from = tb_first_pos_[t], to = tb_last_pos_[t];
      if (to >= ordered || from >= ordered) continue;
      spans.emplace_back(to - from + 1, t, from);
    }
    std::sort(spans.begin(), spans.end());
    std::vector<double> periods(chains_.size(), 0.0);
    std::size_t budget = kPeriodPassesPerAlgorithm * (ordered + edges_total_);
    for (const auto& [span, t, from] : spans) {
      if (span > budget) break;
      budget -= span;
      const std::size_t to = from + span - 1;
      // Steps between the two in topological order are all a path from one to the other can visit.
      for (std::size_t k = from; k <= to; ++k) {
        double begin = k == from ? 0.0 : kUnreached, finish_after = kUnreached;
        if (k != from) {
          for (std::size_t x = edge_first_[k]; x < edge_first_[k + 1]; ++x) {
            const Edge& e = edges_[x];
            if (e.from < from || e.from > to) continue;
            const double at = (e.from_head ? head_[e.from] : end_[e.from]) + e.extra;
            double& bound = e.to_end ? finish_after : begin;
            bound = std::max(bound, at);
          }
        }
        head_[k] = begin + steps_in_order_[k].cost.fixed_s;
        end_[k] = std::max(head_[k] + work_seconds(steps_in_order_[k], tile), finish_after);
      }
      periods[t] = std::max(end_[to], 0.0);
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
    std::vector<const Entry*> entry;  // per step, numbered tb by tb
    std::vector<std::size_t> tb_of, tb_first;
    for (std::size_t t = 0; t < chains_.size(); ++t) {
      tb_first.push_back(entry.size());
      for (const Entry& e : chains_[t]) {
        entry.push_back(&e);
        tb_of.push_back(t);
      }
    }
    const std::size_t n = entry.size();
    std::vector<std::vector<Edge>> in(n);
    const bool per_line = forwards_per_line(algo_.protocol);
    for (std::size_t i = 0; i < n; ++i) {
      const int node = static_cast<int>(i);
      if (entry[i]->step > 0) in[i].push_back({i - 1, false, 0.0, false});
      const int dependee = steps_.dependee(node);
      if (dependee >= 0) in[i].push_back({static_cast<std::size_t>(dependee), false, runtime_.dep_handoff.seconds(), false});
      const int sender = steps_.matched_send(node);
      if (sender < 0) continue;
      const auto snd = static_cast<std::size_t>(sender);
      if (per_line && ir::op_sends(entry[i]->type)) {
        in[i].push_back({snd, true, 0.0, false});
        in[i].push_back({snd, false, 0.0, true});
      } else {
        in[i].push_back({snd, false, 0.0, false});
      }
    }
    // A path longer than a tb's own chain leaves it after some step and re-enters at a later one: per
    // tb, whether its first step with an edge out to another tb comes before its last step with one in.
    std::vector<std::size_t> first_out(chains_.size(), n), last_in(chains_.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      edges_total_ += in[i].size();
      for (const Edge& e : in[i]) {
        if (tb_of[e.from] == tb_of[i]) continue;
        first_out[tb_of[e.from]] = std::min(first_out[tb_of[e.from]], e.from);
        last_in[tb_of[i]] = std::max(last_in[tb_of[i]], i);
      }
    }
    for (std::size_t t = 0; t < chains_.size(); ++t) leaves_own_chain_.push_back(first_out[t] < last_in[t]);
    // Topological order (Kahn); steps on a dependency cycle are left out, which only lowers the bound
    // (simulate reports such an algorithm as a deadlock).
    std::vector<std::size_t> pending(n, 0);
    std::vector<std::vector<std::size_t>> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      pending[i] = in[i].size();
      for (const Edge& e : in[i]) out[e.from].push_back(i);
    }
    std::vector<std::size_t> ready, order;
    for (std::size_t i = 0; i < n; ++i)
      if (pending[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
      const std::size_t i = ready.back();
      ready.pop_back();
      order.push_back(i);
      for (std::size_t j : out[i])
        if (--pending[j] == 0) ready.push_back(j);
    }
    // The walks go by position in that order: steps and their in-edges laid out that way (every
    // predecessor of an ordered step is ordered), so a walk reads memory front to back.
    std::vector<std::size_t> position(n, order.size());
    for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
    edge_first_.assign(order.size() + 1, 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
      steps_in_order_.push_back(*entry[order[k]]);
      tb_in_order_.push_back(tb_of[order[k]]);
      for (Edge e : in[order[k]]) {
        e.from = position[e.from];
        edges_.push_back(e);
      }
      edge_first_[k + 1] = edges_.size();
    }
    for (std::size_t t = 0; t < chains_.size(); ++t) {
      tb_first_pos_.push_back(chains_[t].empty() ? order.size() : position[tb_first[t]]);
      tb_last_pos_.push_back(chains_[t].empty() ? order.size() : position[tb_first[t] + chains_[t].size() - 1]);
    }
    head_.assign(order.size(), 0.0);
    end_.assign(order.size(), 0.0);
  }

  // The first iteration at each of `tiles` bytes per chunk. One walk over the graph serves up to
  // kFirstBatch sizes at once (per step the sizes' times side by side): the walk, not the arithmetic,
  // is what a pass costs. Each size's numbers are computed exactly as a walk of its own would.
  std::vector<FirstIteration> run_first_iterations(const std::vector<double>& tiles) {
    constexpr std::size_t kFirstBatch = 8;  // memory: 2 x 8 doubles per step
    std::vector<FirstIteration> out(tiles.size());
    for (std::size_t from = 0; from < tiles.size(); from += kFirstBatch) {
      const std::size_t k = std::min(kFirstBatch, tiles.size() - from);
      run_first_iteration_batch(&tiles[from], k, &out[from]);
    }
    return out;
  }
  void run_first_iteration_batch(const double* tiles, std::size_t k, FirstIteration* out) {
    head_.assign(steps_in_order_.size() * k, 0.0);
    end_.assign(steps_in_order_.size() * k, 0.0);
    for (std::size_t j = 0; j < k; ++j) {
      out[j].longest = 0.0;
      out[j].tb_start.assign(chains_.size(), 0.0);
    }
    double begin[8], finish_after[8];
    for (std::size_t i = 0; i < steps_in_order_.size(); ++i) {
      std::fill(begin, begin + k, 0.0);
      std::fill(finish_after, finish_after + k, 0.0);
      for (std::size_t x = edge_first_[i]; x < edge_first_[i + 1]; ++x) {
        const Edge& e = edges_[x];
        const double* from = (e.from_head ? head_.data() : end_.data()) + e.from * k;
        double* bound = e.to_end ? finish_after : begin;
        for (std::size_t j = 0; j < k; ++j) bound[j] = std::max(bound[j], from[j] + e.extra);
      }
      const Entry& entry = steps_in_order_[i];
      if (entry.step == 0)
        for (std::size_t j = 0; j < k; ++j) out[j].tb_start[tb_in_order_[i]] = begin[j];
      double* head = head_.data() + i * k;
      double* end = end_.data() + i * k;
      for (std::size_t j = 0; j < k; ++j) {
        head[j] = begin[j] + entry.cost.fixed_s;
        end[j] = std::max(head[j] + work_seconds(entry, tiles[j]), finish_after[j]);
        out[j].longest = std::max(out[j].longest, end[j]);
      }
    }
  }

  const topo::Topology& topo_;
  const ir::Algorithm& algo_;
  topo::GpuArch arch_;
  Bandwidth hbm_;  // sim.hbm_bw.<arch>, for local copies and reductions
  ir::StepGraph steps_;
  ProtocolCosts costs_;
  MscclRuntimeCosts runtime_;
  std::vector<double> capacity_;           // per topology link, as Lowering::run gives the engine
  std::vector<std::vector<Entry>> chains_;  // per tb (ranks, then tbs), its steps
  double capacity_s_per_byte_ = 0.0;        // the capacity bound per chunk byte
  std::vector<ChainSums> sums_;             // per tb
  // The first iteration's graph by position in topological order (steps on a cycle left out).
  std::vector<Entry> steps_in_order_;
  std::vector<std::size_t> tb_in_order_;    // per position, its step's tb
  std::vector<Edge> edges_;                 // into position k: edges_[edge_first_[k] .. edge_first_[k + 1])
  std::vector<std::size_t> edge_first_;
  std::size_t edges_total_ = 0;             // with those into steps left out
  std::vector<std::size_t> tb_first_pos_, tb_last_pos_;  // per tb; past the end when not ordered
  std::vector<char> leaves_own_chain_;      // per tb: a path may leave its chain and come back
  std::vector<double> head_, end_;          // per position (and size), scratch of the graph walks
  std::vector<double> tile_periods_;        // per tb, tile_periods at a full tile; empty until a call needs it
};

}  // namespace

std::vector<SimTime> time_floors(const topo::Topology& topo, const ir::Algorithm& algo, const std::vector<CallSpec>& calls,
                                 const SimParams& params) {
  check_gpu_count(topo, algo);
  FloorModel model(topo, algo, params.table);
  std::vector<ByteCount> chunk_bytes;
  for (const CallSpec& call : calls)
    chunk_bytes.push_back(ir::executor_bytes(algo.collective, algo.ngpus, call.bytes) /
                          static_cast<ByteCount>(std::max(algo.nchunksperloop, 1)));
  return model.floors(chunk_bytes);
}

}  // namespace ccforge::sim
