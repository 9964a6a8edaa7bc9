#include "flow_network.hpp"

#include <algorithm>
#include <cmath>

#include "ccforge/sim/sim.hpp"
#include "maxmin.hpp"

namespace ccforge::sim {

FlowNetwork::FlowNetwork(std::vector<double> link_capacity, std::size_t max_flows, Reschedule reschedule,
                         Resolve resolve)
    : capacity_(std::move(link_capacity)),
      twin_(capacity_.size()),
      flows_on_link_(capacity_.size()),
      occurrence_on_link_(capacity_.size()),
      slot_of_(max_flows, kNoSlot),
      generation_(max_flows, 0),
      reschedule_(std::move(reschedule)),
      link_mark_(capacity_.size(), 0),
      link_dirty_(capacity_.size(), false),
      binding_before_(capacity_.size(), 0),
      cap_load_(capacity_.size(), 0.0),
      unbounded_on_(capacity_.size(), 0),
      use_mark_(capacity_.size(), 0),
      link_use_(capacity_.size()),
      changed_mark_(capacity_.size(), 0),
      local_index_(capacity_.size()),
      resolve_(resolve) {
  for (std::uint32_t l = 0; l < twin_.size(); ++l) twin_[l] = l;
}

void FlowNetwork::set_trace(Trace* trace, std::vector<int> link_tracks) {
  trace_ = trace;
  link_tracks_ = std::move(link_tracks);
}

void FlowNetwork::set_twins(std::vector<std::uint32_t> twin) { twin_ = std::move(twin); }

void FlowNetwork::start(std::uint32_t flow, const std::vector<std::uint32_t>& links, double wire_bytes,
                        double rate_cap, double weight, SimTime now) {
  if (free_flows_.empty()) {
    free_flows_.push_back(static_cast<std::uint32_t>(flows_.size()));
    flows_.emplace_back();
  }
  const std::uint32_t at = free_flows_.back();
  free_flows_.pop_back();
  slot_of_[flow] = at;
  Flow& f = flows_[at];
  f = Flow{&links, wire_bytes, 0.0, rate_cap, weight, now, flow};
  ++generation_[flow];
  mark_dirty(links);
  f.slots = take_slots(links.size());
  for (std::uint32_t k = 0; k < links.size(); ++k) {
    if (!stands_for_itself(links[k])) continue;  // its twin's list is its own
    auto& on = flows_on_link_[links[k]];
    slots_[f.slots + k] = static_cast<std::uint32_t>(on.size());
    on.push_back(at);
    occurrence_on_link_[links[k]].push_back(k);
  }
  add_cap_load(f, 1.0);
  started_.push_back(flow);
}

bool FlowNetwork::finish(std::uint32_t flow, std::uint32_t generation) {
  if (slot_of_[flow] == kNoSlot) return false;
  if (generation_[flow] != generation) return false;
  Flow& f = this->flow(flow);
  mark_dirty(*f.links);
  // Swap-remove each occurrence from its link's list, in O(1): order inside a link does not affect
  // the solution (beyond rounding), and a link carries a thousand flows in a 1024-rank alltoall.
  for (std::uint32_t k = 0; k < f.links->size(); ++k) {
    const std::uint32_t l = (*f.links)[k];
    if (!stands_for_itself(l)) continue;
    auto& on = flows_on_link_[l];
    auto& occ = occurrence_on_link_[l];
    const std::uint32_t at = slots_[f.slots + k];
    on[at] = on.back();
    occ[at] = occ.back();
    slots_[flows_[on[at]].slots + occ[at]] = at;
    on.pop_back();
    occ.pop_back();
  }
  free_slots_[f.links->size()].push_back(f.slots);
  add_cap_load(f, -1.0);
  free_flows_.push_back(slot_of_[flow]);
  slot_of_[flow] = kNoSlot;
  return true;
}

std::uint32_t FlowNetwork::take_slots(std::size_t count) {
  if (free_slots_.size() <= count) free_slots_.resize(count + 1);
  auto& free = free_slots_[count];
  if (!free.empty()) {
    const std::uint32_t base = free.back();
    free.pop_back();
    return base;
  }
  const auto base = static_cast<std::uint32_t>(slots_.size());
  slots_.resize(slots_.size() + count);
  return base;
}

void FlowNetwork::add_cap_load(const Flow& f, double sign) {
  for (std::uint32_t l : *f.links) {
    if (!stands_for_itself(l)) continue;
    if (std::isinf(f.cap)) {
      unbounded_on_[l] += sign > 0.0 ? 1 : -1;
    } else {
      cap_load_[l] += sign * f.weight * f.cap;
    }
    if (flows_on_link_[l].empty()) cap_load_[l] = 0.0;  // no drift carried over an idle period
  }
}

// A twin standing for another is dirty, binding and changed exactly when the one standing for it is.
void FlowNetwork::mark_dirty(const std::vector<std::uint32_t>& links) {
  for (std::uint32_t l : links) {
    if (!link_dirty_[l] && stands_for_itself(l)) {
      link_dirty_[l] = true;
      binding_before_[l] = binding(l);
      dirty_links_.push_back(l);
    }
  }
}

// Every active flow and every link they use (the oracle).
void FlowNetwork::collect_component_full() {
  for (std::uint32_t l = 0; l < capacity_.size(); ++l) {
    if (flows_on_link_[l].empty()) continue;
    link_mark_[l] = epoch_;
    comp_links_.push_back(l);
    for (std::uint32_t p : flows_on_link_[l]) {
      if (flows_[p].mark == epoch_) continue;
      flows_[p].mark = epoch_;
      comp_flows_.push_back(p);
    }
  }
}

// Adds `flow` to the flows being re-solved, and its binding links to their constraints.
void FlowNetwork::visit_flow(std::uint32_t p) {
  Flow& f = flows_[p];
  if (f.mark == epoch_) return;
  f.mark = epoch_;
  comp_flows_.push_back(p);
  for (std::uint32_t l : *f.links) {
    if (link_mark_[l] != epoch_ && binding(l)) {
      link_mark_[l] = epoch_;
      comp_links_.push_back(l);
    }
  }
}

// The flows the changes since the last settle touch directly: those just started, and those on a
// touched link that binds now or did before (a link that never binds constrains nobody).
void FlowNetwork::seed_changed() {
  for (std::uint32_t fl : started_)
    if (slot_of_[fl] != kNoSlot) visit_flow(slot_of_[fl]);
  for (std::uint32_t l : dirty_links_)
    if (binding_before_[l] || binding(l))
      for (std::uint32_t p : flows_on_link_[l]) visit_flow(p);
}

// Everything joined to the flows being re-solved through binding links (comp_links_ grows while we
// walk it): with nothing outside left on their links, their solution is exact.
void FlowNetwork::close_component() {
  for (std::size_t i = 0; i < comp_links_.size(); ++i)
    for (std::uint32_t p : flows_on(comp_links_[i])) visit_flow(p);
}

bool FlowNetwork::solve_component(bool residual) {
  // Local dense indices for the solver; sorted so the problem (and thus rounding) is deterministic.
  std::sort(comp_links_.begin(), comp_links_.end());
  // By flow id, each slot sorted with its id beside it (not looked up in the pool at each comparison).
  sort_keys_.clear();
  for (std::uint32_t p : comp_flows_) sort_keys_.push_back(static_cast<std::uint64_t>(flows_[p].id) << 32 | p);
  std::sort(sort_keys_.begin(), sort_keys_.end());
  for (std::size_t i = 0; i < sort_keys_.size(); ++i) comp_flows_[i] = static_cast<std::uint32_t>(sort_keys_[i]);
  MaxMinProblem& problem = problem_;
  problem.capacity.clear();
  problem.bound.clear();
  problem.weight.clear();
  if (problem.uses.size() < comp_flows_.size()) problem.uses.resize(comp_flows_.size());
  bool outside = false;
  for (const std::uint32_t l : comp_links_) {
    // A twin standing for another is its twin's constraint or a looser one (twin_links.cpp); the twin
    // is in the component whenever it is.
    if (!stands_for_itself(l)) continue;
    double free = capacity_[l];
    if (residual) {
      for (std::uint32_t p : flows_on_link_[l]) {
        const Flow& f = flows_[p];
        if (f.mark == epoch_) continue;
        outside = true;
        free -= f.weight * f.rate;
      }
    }
    local_index_[l] = LocalIndex{epoch_, static_cast<std::uint32_t>(problem.capacity.size())};
    problem.capacity.push_back(std::max(free, 0.0));
  }
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    const Flow& f = flows_[comp_flows_[i]];
    problem.bound.push_back(f.cap);
    problem.weight.push_back(f.weight);
    std::vector<std::uint32_t>& uses = problem.uses[i];
    uses.clear();
    for (std::uint32_t l : *f.links)  // its binding links standing for themselves (all, for Full)
      if (local_index_[l].epoch == epoch_) uses.push_back(local_index_[l].index);
  }
  const std::vector<double>& rates = solver_.solve(problem);
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) flows_[comp_flows_[i]].trial_rate = rates[i];
  return outside;
}

const FlowNetwork::LinkUse& FlowNetwork::link_use(std::uint32_t link) {
  LinkUse& u = link_use_[link];
  if (use_mark_[link] == check_epoch_) return u;
  use_mark_[link] = check_epoch_;
  u = LinkUse{};
  for (std::uint32_t p : flows_on_link_[link]) {
    const double r = rate_now(flows_[p]);
    u.load += flows_[p].weight * r;
    u.max_rate = std::max(u.max_rate, r);
  }
  return u;
}

// Max-min's own certificate: a flow is at its cap, or has a bottleneck, a saturated link on which no
// flow gets more than it does. The link that certified a flow last time is tried first, and taken
// unchecked while it binds and nothing on it changed (the same comparisons on the same numbers).
bool FlowNetwork::certified(std::uint32_t p) {
  Flow& f = flows_[p];
  const double rate = rate_now(f);
  const std::uint32_t last = f.bottleneck;
  if (last != kNoLink && changed_mark_[last] != check_epoch_ && binding(last)) return true;
  rechecked_.push_back(p);
  f.trial_bottleneck = kNoLink;
  if (rate >= f.cap * (1.0 - kCertifyTolerance)) return true;
  if (last != kNoLink && binding(last) && certifies(last, rate)) {
    f.trial_bottleneck = last;
    return true;
  }
  for (std::uint32_t l : *f.links) {
    // A twin of equal capacity certifies as the one standing for it (recorded in its place: the same
    // tests on the same numbers later); a larger one never does (twin_links.cpp).
    const std::uint32_t t = twin_[l];
    if (t != l && capacity_[l] != capacity_[t]) continue;
    if (t == last || !binding(t) || !certifies(t, rate)) continue;
    f.trial_bottleneck = t;
    return true;
  }
  return false;
}

bool FlowNetwork::certifies(std::uint32_t link, double rate) {
  const LinkUse& u = link_use(link);
  return u.load >= capacity_[link] * (1.0 - kCertifyTolerance) && rate >= u.max_rate * (1.0 - kCertifyTolerance);
}

// The links touched since the last settle and those of flows whose trial rate differs from their rate.
void FlowNetwork::mark_changed_links() {
  for (std::uint32_t l : dirty_links_) changed_mark_[l] = check_epoch_;
  for (std::uint32_t p : comp_flows_) {
    const Flow& f = flows_[p];
    if (f.trial_rate == f.rate) continue;
    for (std::uint32_t l : *f.links) changed_mark_[l] = check_epoch_;
  }
}

// The check was accepted: the links it found certify the rates now applied.
void FlowNetwork::commit_bottlenecks() {
  for (std::uint32_t p : rechecked_) flows_[p].bottleneck = flows_[p].trial_bottleneck;
}

// Re-solves the touched flows alone, the others' rates held, and accepts that when every flow on a
// link they use is certified: flows elsewhere keep the certificates of the last settle, so the whole
// allocation is max-min fair (unique). Otherwise the uncertified flows (or, for a re-solved one, the
// held flows beside it) join and it tries again; should that add nobody, the whole component is solved.
void FlowNetwork::grow_until_certified() {
  seed_changed();
  while (solve_component(true)) {
    ++check_epoch_;
    mark_changed_links();
    uncertified_.clear();
    rechecked_.clear();
    const std::size_t links = comp_links_.size();
    for (std::size_t i = 0; i < links; ++i)
      for (std::uint32_t p : flows_on(comp_links_[i])) {
        Flow& f = flows_[p];
        if (f.check_mark == check_epoch_) continue;
        f.check_mark = check_epoch_;
        if (!certified(p)) uncertified_.push_back(p);
      }
    if (uncertified_.empty()) {
      commit_bottlenecks();
      return;
    }
    const std::size_t before = comp_flows_.size();
    for (std::uint32_t p : uncertified_) {
      if (flows_[p].mark != epoch_) {
        visit_flow(p);
        continue;
      }
      for (std::uint32_t l : *flows_[p].links)
        if (link_mark_[l] == epoch_)
          for (std::uint32_t held : flows_on(l)) visit_flow(held);
    }
    if (comp_flows_.size() == before) {
      close_component();
      solve_component(false);
      break;
    }
  }
  // Solved as a closed component, unchecked: the links that certify these rates are not known.
  for (std::uint32_t p : comp_flows_) flows_[p].bottleneck = kNoLink;
}

void FlowNetwork::settle(SimTime now) {
  if (dirty_links_.empty()) return;
  for (std::uint32_t l : dirty_links_) link_dirty_[l] = false;
  ++epoch_;
  comp_links_.clear();
  comp_flows_.clear();
  if (resolve_ == Resolve::Full) {
    collect_component_full();
    solve_component(false);
  } else {
    grow_until_certified();
  }
  if (trace_ != nullptr) trace_links();
  dirty_links_.clear();
  started_.clear();
  for (std::uint32_t p : comp_flows_) apply_rate(flows_[p], now);
  if (trace_ != nullptr) trace_loads(now);
}

void FlowNetwork::apply_rate(Flow& f, SimTime now) {
  const double rate = f.trial_rate;
  if (rate == f.rate) return;  // unchanged rate: the pending finish event stays valid
  f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.updated).seconds());
  f.updated = now;
  f.rate = rate;
  ++generation_[f.id];
  if (rate > 0.0) reschedule_(f.id, now + transfer_time(f.remaining, Bandwidth{rate}), generation_[f.id]);
}

// The links whose load can change at this settle: the touched ones and all links of re-solved flows,
// binding or not (taken before the solve, while dirty_links_ still holds the touched ones).
void FlowNetwork::trace_links() {
  trace_links_ = dirty_links_;
  for (std::uint32_t p : comp_flows_) trace_links_.insert(trace_links_.end(), flows_[p].links->begin(), flows_[p].links->end());
  std::sort(trace_links_.begin(), trace_links_.end());
  trace_links_.erase(std::unique(trace_links_.begin(), trace_links_.end()), trace_links_.end());
}

void FlowNetwork::trace_loads(SimTime now) {
  for (std::uint32_t l : trace_links_) {
    double load = 0.0;
    for (std::uint32_t p : flows_on_link_[l]) load += flows_[p].rate * flows_[p].weight;
    trace_->counters.push_back(TraceCounter{link_tracks_[l], now, load * 1e-9});
  }
}

}  // namespace ccforge::sim
