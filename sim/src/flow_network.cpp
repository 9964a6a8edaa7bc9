#include "flow_network.hpp"

#include <algorithm>

#include "ccforge/sim/sim.hpp"
#include "maxmin.hpp"

namespace ccforge::sim {

FlowNetwork::FlowNetwork(std::vector<double> link_capacity, std::size_t max_flows, Reschedule reschedule,
                         Resolve resolve)
    : capacity_(std::move(link_capacity)),
      flows_on_link_(capacity_.size()),
      flows_(max_flows),
      reschedule_(std::move(reschedule)),
      link_mark_(capacity_.size(), 0),
      flow_mark_(max_flows, 0),
      link_dirty_(capacity_.size(), false),
      local_index_(capacity_.size(), 0),
      resolve_(resolve) {}

void FlowNetwork::set_trace(Trace* trace, std::vector<int> link_tracks) {
  trace_ = trace;
  link_tracks_ = std::move(link_tracks);
}

void FlowNetwork::start(std::uint32_t flow, const std::vector<std::uint32_t>& links, double wire_bytes,
                        double rate_cap, double weight, SimTime now) {
  Flow& f = flows_[flow];
  f = Flow{&links, wire_bytes, 0.0, rate_cap, weight, now, f.generation + 1, true};
  for (std::uint32_t l : links) flows_on_link_[l].push_back(flow);
  mark_dirty(links);
}

bool FlowNetwork::finish(std::uint32_t flow, std::uint32_t generation) {
  Flow& f = flows_[flow];
  if (!f.active || f.generation != generation) return false;
  f.active = false;
  for (std::uint32_t l : *f.links) {
    auto& on = flows_on_link_[l];
    auto it = std::find(on.begin(), on.end(), flow);
    *it = on.back();  // swap-remove: order inside a link does not affect the solution
    on.pop_back();
  }
  mark_dirty(*f.links);
  return true;
}

void FlowNetwork::mark_dirty(const std::vector<std::uint32_t>& links) {
  for (std::uint32_t l : links) {
    if (!link_dirty_[l]) {
      link_dirty_[l] = true;
      dirty_links_.push_back(l);
    }
  }
}

void FlowNetwork::collect_component(const std::vector<std::uint32_t>& seed_links) {
  ++epoch_;
  comp_links_.clear();
  comp_flows_.clear();
  for (std::uint32_t l : seed_links) {
    if (link_mark_[l] != epoch_) {
      link_mark_[l] = epoch_;
      comp_links_.push_back(l);
    }
  }
  // Breadth-first over link -> flows on it -> their links; comp_links_ grows while we walk it.
  for (std::size_t i = 0; i < comp_links_.size(); ++i) {
    for (std::uint32_t fl : flows_on_link_[comp_links_[i]]) {
      if (flow_mark_[fl] == epoch_) continue;
      flow_mark_[fl] = epoch_;
      comp_flows_.push_back(fl);
      for (std::uint32_t l : *flows_[fl].links) {
        if (link_mark_[l] != epoch_) {
          link_mark_[l] = epoch_;
          comp_links_.push_back(l);
        }
      }
    }
  }
}

void FlowNetwork::settle(SimTime now) {
  if (dirty_links_.empty()) return;
  for (std::uint32_t l : dirty_links_) link_dirty_[l] = false;
  if (resolve_ == Resolve::Full) {
    dirty_links_.clear();
    for (std::uint32_t l = 0; l < capacity_.size(); ++l)
      if (!flows_on_link_[l].empty()) dirty_links_.push_back(l);
  }
  collect_component(dirty_links_);
  dirty_links_.clear();
  // Local dense indices for the solver; sorted so the problem (and thus rounding) is deterministic.
  std::sort(comp_links_.begin(), comp_links_.end());
  std::sort(comp_flows_.begin(), comp_flows_.end());
  MaxMinProblem& problem = problem_;
  problem.capacity.clear();
  problem.bound.clear();
  problem.weight.clear();
  if (problem.uses.size() < comp_flows_.size()) problem.uses.resize(comp_flows_.size());
  for (std::size_t i = 0; i < comp_links_.size(); ++i) {
    problem.capacity.push_back(capacity_[comp_links_[i]]);
    local_index_[comp_links_[i]] = static_cast<std::uint32_t>(i);
  }
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    const Flow& f = flows_[comp_flows_[i]];
    problem.bound.push_back(f.cap);
    problem.weight.push_back(f.weight);
    std::vector<std::uint32_t>& uses = problem.uses[i];
    uses.clear();
    for (std::uint32_t l : *f.links) uses.push_back(local_index_[l]);
  }
  const std::vector<double>& rates = solver_.solve(problem);
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) apply_rate(comp_flows_[i], rates[i], now);
  if (trace_ != nullptr) trace_loads(now);
}

void FlowNetwork::apply_rate(std::uint32_t flow, double rate, SimTime now) {
  Flow& f = flows_[flow];
  if (rate == f.rate) return;  // unchanged rate: the pending finish event stays valid
  f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.updated).seconds());
  f.updated = now;
  f.rate = rate;
  ++f.generation;
  if (rate > 0.0) reschedule_(flow, now + transfer_time(f.remaining, Bandwidth{rate}), f.generation);
}

void FlowNetwork::trace_loads(SimTime now) {
  for (std::uint32_t l : comp_links_) {
    double load = 0.0;
    for (std::uint32_t fl : flows_on_link_[l]) load += flows_[fl].rate * flows_[fl].weight;
    trace_->counters.push_back(TraceCounter{link_tracks_[l], now, load * 1e-9});
  }
}

}  // namespace ccforge::sim
