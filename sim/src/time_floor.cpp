// A provable lower bound on sim::simulate for an MSCCL algorithm, read off the lowering's structure
// (msccl_lowering.cpp) without running events. Every term is a cost the engine cannot avoid:
//  - capacity: the wire bytes a link (or a GPU's LL issue rate) must carry over the whole call,
//    divided by its capacity (max-min fair sharing never gives a link's flows more than that);
//  - threadblock chain: a tb's steps run one after another in every tile iteration, each paying its
//    alpha (route latency, protocol sync, LL forwarding turnaround) and pushing its bytes no faster
//    than the tb's protocol cap and the slowest link of its route allow; the chain starts no earlier
//    than the longest chain of first-iteration dependencies leading to it;
//  - the first iteration's longest dependency chain as a whole (latency-bound sizes).
// Plus the MSCCL kernel's base cost, which simulate adds to every makespan. Edges the bound drops
// (buffer-slot back-pressure, later iterations' cross-tb dependencies) only make it lower.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "msccl_lowering.hpp"

namespace ccforge::sim {
namespace {

// Floating-point sums here and in the engine's rate updates can disagree in the last bits; the floor
// gives up this share of itself so that rounding never lifts it above the simulated time.
constexpr double kRoundingMargin = 1e-9;

bool sends(ir::OpType t) {
  using O = ir::OpType;
  return t == O::Send || t == O::RecvCopySend || t == O::RecvReduceSend || t == O::RecvReduceCopySend;
}
bool receives(ir::OpType t) {
  using O = ir::OpType;
  return t == O::Recv || t == O::RecvCopySend || t == O::RecvReduceSend || t == O::RecvReduceCopy ||
         t == O::RecvReduceCopySend;
}

enum class Work { None, Transfer, Copy, Reduce };

// What a step costs once it may start: a fixed part every tile iteration pays again (a send's alpha
// and forwarding turnaround) and a part proportional to the bytes it moves.
struct StepCost {
  Work work = Work::None;
  double fixed_s = 0.0;
  double rate = 0.0;  // Transfer: the most wire bytes/s its flow can get
};

class FloorModel {
 public:
  FloorModel(const topo::Topology& topo, const ir::Algorithm& algo, const ParamTable& params)
      : topo_(topo), algo_(algo), params_(params), arch_(topo.gpu(0).arch) {
    costs_ = protocol_costs(params, algo.protocol, arch_);
    runtime_ = msccl_runtime_costs(params);
    const auto& links = topo.links();
    capacity_.reserve(links.size());
    for (const topo::Link& l : links) capacity_.push_back(l.bandwidth.bytes_per_s * link_efficiency(params, l.kind, arch_));
    cost_steps();
  }

  SimTime floor(ByteCount chunk_bytes) const {
    const ByteCount tile = msccl_tile_bytes(algo_.protocol);
    const ByteCount iters = (chunk_bytes + tile - 1) / tile;
    const double first_tile = static_cast<double>(std::min(tile, chunk_bytes));
    const double total = static_cast<double>(chunk_bytes);
    double bound = capacity_bound(total);
    const std::vector<double> first_start = first_iteration_starts(first_tile, bound);
    for (std::size_t t = 0; t < chains_.size(); ++t) {
      double chain = 0.0;
      for (const Entry& e : chains_[t]) chain += static_cast<double>(iters) * e.cost.fixed_s + work_seconds(e, total);
      bound = std::max(bound, first_start[t] + chain);
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

  // Alpha of a transfer as Lowering::transfer_alpha charges it (always with the protocol sync: MSCCL
  // steps are never later slices of a pipelined step).
  SimTime alpha(const topo::Route& route) const {
    SimTime delay = route.latency + sync_cost(costs_, route.path_class);
    if (route.path_class == topo::PathClass::Net) delay += SimTime::from_us(params_.get("sim.net.proxy_us"));
    return delay;
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
          if (sends(step.type) && valid_peer(rank, tb.send_peer)) {
            const topo::Route& route = topo_.route(rank, tb.send_peer);
            SimTime fixed = alpha(route);
            if (forwards_per_line(algo_.protocol) && receives(step.type)) fixed += runtime_.line_forward;
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

  // Earliest times within the first tile iteration (its own bytes `tile`), as the lowering wires it:
  // tb order, depid/deps through a flag handoff, the k-th send on a connection feeding its k-th
  // receive (cut-through from the first line where the receiver forwards per line). Returns, per tb,
  // when its first step may start, and raises `longest` to the latest step end.
  std::vector<double> first_iteration_starts(double tile, double& longest) const {
    // Flat step index: offset of each tb's steps.
    std::vector<std::size_t> base;
    std::size_t n = 0;
    for (const auto& chain : chains_) {
      base.push_back(n);
      n += chain.size();
    }
    std::vector<std::size_t> tb_index_of;  // (rank, tb) -> chains_ index
    std::vector<std::size_t> rank_first(algo_.gpus.size() + 1, 0);
    for (std::size_t r = 0; r < algo_.gpus.size(); ++r) rank_first[r + 1] = rank_first[r] + algo_.gpus[r].tbs.size();
    auto flat = [&](int rank, int tb, int step) { return base[rank_first[rank] + tb] + step; };

    // Edges: into a step's start (before it may begin) or into its end (a forwarding receive ends only
    // after the incoming data is through).
    struct Edge {
      std::size_t from;
      bool from_head;  // the sender's first line, not its end
      double extra;    // seconds added on the edge (flag handoff)
      bool to_end;
    };
    std::vector<std::vector<Edge>> in(n);
    std::map<std::tuple<int, int, int>, std::vector<std::size_t>> sent, received;
    const bool per_line = forwards_per_line(algo_.protocol);
    for (std::size_t t = 0; t < chains_.size(); ++t) {
      for (const Entry& e : chains_[t]) {
        const std::size_t i = flat(e.rank, e.tb, e.step);
        const ir::ThreadBlock& tb = algo_.gpus[e.rank].tbs[e.tb];
        if (e.step > 0) in[i].push_back({i - 1, false, 0.0, false});
        const ir::Step& step = tb.steps[e.step];
        if (step.dep_tb >= 0 && step.dep_tb < static_cast<int>(algo_.gpus[e.rank].tbs.size()) && step.dep_step >= 0 &&
            step.dep_step < static_cast<int>(algo_.gpus[e.rank].tbs[step.dep_tb].steps.size()))
          in[i].push_back({flat(e.rank, step.dep_tb, step.dep_step), false, runtime_.dep_handoff.seconds(), false});
        if (sends(e.type)) sent[{e.rank, tb.send_peer, tb.channel}].push_back(i);
        if (receives(e.type)) received[{tb.recv_peer, e.rank, tb.channel}].push_back(i);
      }
    }
    std::vector<const Entry*> entry(n);
    for (std::size_t t = 0; t < chains_.size(); ++t)
      for (const Entry& e : chains_[t]) entry[flat(e.rank, e.tb, e.step)] = &e;
    for (const auto& [conn, senders] : sent) {
      auto it = received.find(conn);
      if (it == received.end()) continue;
      for (std::size_t k = 0; k < std::min(senders.size(), it->second.size()); ++k) {
        const std::size_t snd = senders[k], rcv = it->second[k];
        const bool cut_through = per_line && sends(entry[rcv]->type);
        if (cut_through) {
          in[rcv].push_back({snd, true, 0.0, false});
          in[rcv].push_back({snd, false, 0.0, true});
        } else {
          in[rcv].push_back({snd, false, 0.0, false});
        }
      }
    }
    // Longest paths in topological order (Kahn); steps on a dependency cycle stay unreached, which
    // only lowers the bound (simulate reports such an algorithm as a deadlock).
    std::vector<std::size_t> pending(n, 0);
    std::vector<std::vector<std::size_t>> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      pending[i] = in[i].size();
      for (const Edge& e : in[i]) out[e.from].push_back(i);
    }
    std::vector<double> start(n, 0.0), head(n, 0.0), end(n, 0.0);
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
      if (pending[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
      const std::size_t i = ready.back();
      ready.pop_back();
      double begin = 0.0, finish_after = 0.0;
      for (const Edge& e : in[i]) {
        const double t = (e.from_head ? head[e.from] : end[e.from]) + e.extra;
        double& bound = e.to_end ? finish_after : begin;
        bound = std::max(bound, t);
      }
      start[i] = begin;
      head[i] = begin + entry[i]->cost.fixed_s;
      end[i] = std::max(head[i] + work_seconds(*entry[i], tile), finish_after);
      longest = std::max(longest, end[i]);
      for (std::size_t j : out[i])
        if (--pending[j] == 0) ready.push_back(j);
    }
    std::vector<double> first_start(chains_.size(), 0.0);
    for (std::size_t t = 0; t < chains_.size(); ++t)
      if (!chains_[t].empty()) first_start[t] = start[base[t]];
    return first_start;
  }

  const topo::Topology& topo_;
  const ir::Algorithm& algo_;
  const ParamTable& params_;
  topo::GpuArch arch_;
  ProtocolCosts costs_;
  MscclRuntimeCosts runtime_;
  std::vector<double> capacity_;           // per topology link, as Lowering::run gives the engine
  std::vector<std::vector<Entry>> chains_;  // per tb (ranks, then tbs), its steps
};

}  // namespace

SimTime time_floor(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call, const SimParams& params) {
  if (algo.ngpus != topo.num_gpus() || static_cast<int>(algo.gpus.size()) != algo.ngpus) {
    fail_at(algo.source_file.empty() ? algo.name : algo.source_file, 1,
            fmt::format("algorithm is for {} GPUs but topology {} has {}", algo.ngpus, topo.name(), topo.num_gpus()),
            fmt::format("use an algorithm with ngpus=\"{}\"", topo.num_gpus()));
  }
  const ByteCount chunk_bytes =
      ir::executor_bytes(algo.collective, algo.ngpus, call.bytes) / static_cast<ByteCount>(std::max(algo.nchunksperloop, 1));
  return FloorModel(topo, algo, params.table).floor(chunk_bytes);
}

}  // namespace ccforge::sim
