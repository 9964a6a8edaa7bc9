#include "floor_steps.hpp"

#include <algorithm>

namespace ccforge::sim {

FloorSteps::FloorSteps(const topo::Topology& topo, const ir::Algorithm& algo, const SimConstants& params)
    : topo_(topo), algo_(algo), hbm_(hbm_bandwidth(params, topo.gpu(0).model->arch)) {
  costs_ = msccl_protocol_costs(params, algo.protocol, topo, msccl_runtime(topo));
  runtime_ = msccl_runtime_costs(params, msccl_runtime(topo));
  capacity_ = link_capacities(topo, params);
  cost_steps();
  capacity_s_per_byte_ = capacity_bound(1.0);
  sum_chains();
  collect_resource_uses();
}

double FloorSteps::work_seconds(const FloorStep& e, double chunk_bytes) const {
  const double bytes = chunk_bytes * e.count;
  switch (e.cost.work) {
    case FloorWork::Transfer: return e.cost.rate > 0.0 ? bytes / costs_.wire_efficiency / e.cost.rate : 0.0;
    case FloorWork::Copy: return local_copy_time(hbm_, bytes).seconds();
    case FloorWork::Reduce: return local_reduce_time(hbm_, bytes).seconds();
    case FloorWork::None: break;
  }
  return 0.0;
}

double FloorSteps::link_rate(const topo::Route& route) const {
  double rate = costs_.tb_bytes_per_s;
  for (LinkId l : route.links) rate = std::min(rate, capacity_[l.v]);
  if (costs_.gpu_bytes_per_s > 0.0) rate = std::min(rate, costs_.gpu_bytes_per_s);
  return rate;
}

// One entry per step, tb by tb in the lowering's order (ranks, tbs, steps).
void FloorSteps::cost_steps() {
  for (std::size_t r = 0; r < algo_.gpus.size(); ++r) {
    const int rank = static_cast<int>(r);
    for (std::size_t b = 0; b < algo_.gpus[r].tbs.size(); ++b) {
      const ir::ThreadBlock& tb = algo_.gpus[r].tbs[b];
      std::vector<FloorStep> chain;
      chain.reserve(tb.steps.size());
      for (std::size_t s = 0; s < tb.steps.size(); ++s) {
        const ir::Step& step = tb.steps[s];
        FloorStep e{rank, static_cast<int>(b), static_cast<int>(s), step.type, static_cast<double>(std::max(step.count, 0)), {}};
        if (ir::op_sends(step.type) && valid_peer(rank, tb.send_peer)) {
          const topo::Route& route = topo_.route(rank, tb.send_peer);
          // Always with the protocol sync: MSCCL steps are never later slices of a pipelined step.
          SimTime fixed = transfer_alpha(costs_, route);
          if (forwards_per_line(algo_.protocol) && ir::op_receives(step.type)) fixed += runtime_.line_forward;
          e.cost = {FloorWork::Transfer, fixed.seconds(), link_rate(route)};
        } else if (step.type == ir::OpType::Copy) {
          e.cost.work = FloorWork::Copy;
        } else if (step.type == ir::OpType::Reduce || step.type == ir::OpType::RecvReduceCopy) {
          e.cost.work = FloorWork::Reduce;
        }
        chain.push_back(e);
      }
      chains_.push_back(std::move(chain));
    }
  }
}

// Wire bytes per link (and per GPU issue rate) over the whole call, over capacity; the most loaded.
double FloorSteps::capacity_bound(double total) const {
  std::vector<double> load(capacity_.size(), 0.0);
  std::vector<double> issued(static_cast<std::size_t>(algo_.ngpus), 0.0);
  for (const std::vector<FloorStep>& chain : chains_) {
    for (const FloorStep& e : chain) {
      if (e.cost.work != FloorWork::Transfer) continue;
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

void FloorSteps::sum_chains() {
  for (const std::vector<FloorStep>& chain : chains_) {
    ChainSums c;
    for (const FloorStep& e : chain) {
      c.fixed_s += e.cost.fixed_s;
      if (e.cost.work == FloorWork::Transfer) c.transfer_s_per_byte += work_seconds(e, 1.0);
      if (e.cost.work == FloorWork::Copy) c.copy_chunks += e.count;
      if (e.cost.work == FloorWork::Reduce) c.reduce_chunks += e.count;
    }
    sums_.push_back(c);
  }
}

// Per tb and resource its transfers' wire bytes per chunk byte over the resource's capacity, the same
// loads capacity_bound sums, grouped by resource.
void FloorSteps::collect_resource_uses() {
  const std::size_t links = capacity_.size();
  std::vector<std::pair<std::size_t, ResourceUse>> all;  // (resource, use)
  std::vector<std::pair<std::size_t, double>> mine;      // this tb's (resource, s_per_byte)
  for (std::size_t t = 0; t < chains_.size(); ++t) {
    mine.clear();
    const auto add = [&](std::size_t resource, double s) {
      for (auto& [r, sum] : mine)
        if (r == resource) return void(sum += s);
      mine.emplace_back(resource, s);
    };
    first_send_.push_back(-1);
    for (const FloorStep& e : chains_[t]) {
      if (e.cost.work != FloorWork::Transfer) continue;
      if (first_send_.back() < 0) first_send_.back() = e.step;
      const int peer = algo_.gpus[e.rank].tbs[e.tb].send_peer;
      const double wire = e.count / costs_.wire_efficiency;
      for (LinkId l : topo_.route(e.rank, peer).links)
        if (capacity_[l.v] > 0.0) add(l.v, wire / capacity_[l.v]);
      if (costs_.gpu_bytes_per_s > 0.0) add(links + static_cast<std::size_t>(e.rank), wire / costs_.gpu_bytes_per_s);
    }
    for (const auto& [r, s] : mine) all.push_back({r, {static_cast<std::uint32_t>(t), s}});
  }
  use_first_.assign(links + static_cast<std::size_t>(algo_.ngpus) + 1, 0);
  for (const auto& [r, use] : all) ++use_first_[r + 1];
  for (std::size_t r = 0; r + 1 < use_first_.size(); ++r) use_first_[r + 1] += use_first_[r];
  uses_.resize(all.size());
  std::vector<std::size_t> fill(use_first_.begin(), use_first_.end() - 1);
  for (const auto& [r, use] : all) uses_[fill[r]++] = use;
}

double FloorSteps::own_chain(std::size_t t, double iterations, double bytes) const {
  const ChainSums& c = sums_[t];
  return iterations * c.fixed_s + bytes * c.transfer_s_per_byte + local_copy_time(hbm_, bytes * c.copy_chunks).seconds() +
         local_reduce_time(hbm_, bytes * c.reduce_chunks).seconds();
}

}  // namespace ccforge::sim
