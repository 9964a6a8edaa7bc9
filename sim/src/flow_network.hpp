// Links as shared resources: active flows get max-min fair rates, re-solved only for the connected
// component of flows and links touched when flows start or end (SimGrid's selective update), once per
// instant: starts and ends at one time only mark links dirty, and settle() re-solves them together
// before time moves on (rates at an instant depend only on the set of flows then, so this is exact).
// Components are joined only through binding links: a link whose flows' rate caps sum to less than
// its capacity can never saturate, so it constrains nobody and is left out of the problem (exact: its
// saturation level lies above some flow's cap on it at every round of progressive filling). Without
// that, one NVLink port shared by a rank's tree or ring sends tied all 1024 ranks of a cluster into
// one component re-solved at every event.
// Flows progress lazily: `remaining` is settled only when a flow's rate changes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ccforge/common/units.hpp"
#include "maxmin.hpp"

namespace ccforge::sim {

struct Trace;

class FlowNetwork {
 public:
  // Called for each flow whose predicted finish time changed; `generation` lets stale ones be dropped.
  using Reschedule = std::function<void(std::uint32_t flow, SimTime finish, std::uint32_t generation)>;

  // Selective: re-solve the component around the touched links (what the engine runs). Full: re-solve
  // every active flow at each settle, the test oracle the selective re-solve must agree with.
  enum class Resolve { Selective, Full };

  FlowNetwork(std::vector<double> link_capacity, std::size_t max_flows, Reschedule reschedule,
              Resolve resolve = Resolve::Selective);

  // Optional: link load counters go to `trace` on `link_tracks[link]`.
  void set_trace(Trace* trace, std::vector<int> link_tracks);
  // Optional, before the first start() and without a trace: per link, the twin that stands for it
  // (twin_links.hpp). A link standing for itself is kept as before; another keeps no flow list or load of
  // its own (its twin's are its own), takes no part in the max-min problem, and is a bottleneck only as
  // its twin, where its capacity equals the twin's. The same rates, re-solves and certificates bit for
  // bit, for less work per event.
  void set_twins(std::vector<std::uint32_t> twin);

  // `weight` identical flows move `wire_bytes` each at a shared per-flow rate (from the next settle()).
  void start(std::uint32_t flow, const std::vector<std::uint32_t>& links, double wire_bytes, double rate_cap,
             double weight, SimTime now);
  // True when the event is current; then the flow is removed (its neighbours re-solved at settle()).
  bool finish(std::uint32_t flow, std::uint32_t generation);
  // Re-solves the flows around every link touched since the last call; rates hold from `now`.
  void settle(SimTime now);
  bool settled() const { return dirty_links_.empty(); }

  // A flow's state as of its last rate change (for the period detector).
  struct FlowState {
    bool active = false;
    double remaining = 0.0;  // wire bytes left at `updated`
    double rate = 0.0;
    SimTime updated;
  };
  FlowState state(std::uint32_t flow) const {
    if (slot_of_[flow] == kNoSlot) return FlowState{};
    const Flow& f = flows_[slot_of_[flow]];
    return FlowState{true, f.remaining, f.rate, f.updated};
  }

 private:
  // State of a flow while it moves bytes, in a pool slot reused once it finishes: a graph of millions
  // of tasks has only thousands in flight at once (a 1024-rank candidate at 512 MB: 2.9 M tasks; this
  // was 80 bytes per task, now 8 with the generation).
  struct Flow {
    const std::vector<std::uint32_t>* links = nullptr;
    double remaining = 0.0;
    double rate = 0.0;
    double cap = 0.0;
    double weight = 1.0;
    SimTime updated;
    std::uint32_t id = 0;     // the flow's task
    std::uint32_t slots = 0;  // slots_[slots + k] = index of links[k]'s entry in its link's list
    // Re-solve scratch: mark == epoch_ while being re-solved (then trial_rate is its new rate);
    // check_mark == check_epoch_ once its certificate was checked.
    std::uint32_t mark = 0, check_mark = 0;
    double trial_rate = 0.0;
    // A link that certified this rate at an accepted check (kNoLink: none known): it still does while
    // that link binds and nothing on it changed. trial_bottleneck: found by the check under way.
    std::uint32_t bottleneck = kNoLink, trial_bottleneck = kNoLink;
  };
  static constexpr std::uint32_t kNoSlot = 0xffffffffu;
  static constexpr std::uint32_t kNoLink = 0xffffffffu;
  Flow& flow(std::uint32_t id) { return flows_[slot_of_[id]]; }
  std::uint32_t take_slots(std::size_t count);
  // Whether the flows now on `link` could saturate it (see the header comment).
  bool binding(std::uint32_t link) const {
    const std::uint32_t t = twin_[link];
    return unbounded_on_[t] > 0 || cap_load_[t] >= capacity_[link] * (1.0 - kBindingMargin);
  }
  bool stands_for_itself(std::uint32_t link) const { return twin_[link] == link; }
  const std::vector<std::uint32_t>& flows_on(std::uint32_t link) const { return flows_on_link_[twin_[link]]; }
  void mark_dirty(const std::vector<std::uint32_t>& links);
  void add_cap_load(const Flow& f, double sign);
  void collect_component_full();
  void visit_flow(std::uint32_t slot);
  void seed_changed();
  void close_component();
  // Solves comp_flows_ on comp_links_ into trial_rate_; `residual`: with the capacity the flows outside
  // leave at their current rates. Returns whether any flow outside shares those links.
  bool solve_component(bool residual);
  void grow_until_certified();
  struct LinkUse {
    double load = 0.0, max_rate = 0.0;
  };
  double rate_now(const Flow& f) const { return f.mark == epoch_ ? f.trial_rate : f.rate; }
  const LinkUse& link_use(std::uint32_t link);  // with rate_now, cached per check_epoch_
  bool certified(std::uint32_t slot);
  bool certifies(std::uint32_t link, double rate);
  void mark_changed_links();
  void commit_bottlenecks();
  void trace_links();
  void apply_rate(Flow& f, SimTime now);  // its trial rate
  void trace_loads(SimTime now);

  std::vector<double> capacity_;
  std::vector<std::uint32_t> twin_;  // per link: the twin standing for it (set_twins), itself by default
  // Per link: the pool slots of its flows. Slots, not flow ids, throughout the re-solve: an id's slot
  // lies in a per-task array of millions of entries, a cache miss per lookup.
  std::vector<std::vector<std::uint32_t>> flows_on_link_;
  std::vector<std::vector<std::uint32_t>> occurrence_on_link_;  // per entry of flows_on_link_: k in the flow's links
  std::vector<std::uint32_t> slots_;                   // pooled per active flow (Flow::slots)
  std::vector<std::vector<std::uint32_t>> free_slots_;  // per block length, blocks of slots_ free again
  std::vector<Flow> flows_;               // pool of the flows in flight
  std::vector<std::uint32_t> free_flows_;  // pool slots free again
  std::vector<std::uint32_t> slot_of_;     // per flow id (task): its pool slot, kNoSlot when not moving
  std::vector<std::uint32_t> generation_;  // per flow id: bumped at its start and at every rate change
  Reschedule reschedule_;
  // Component search scratch, reused: epoch marks clear in O(1).
  std::vector<std::uint32_t> link_mark_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> comp_links_, comp_flows_;  // comp_flows_: slots
  std::vector<std::uint64_t> sort_keys_;                // (id, slot) of comp_flows_, to sort them by id
  std::vector<std::uint32_t> dirty_links_;  // touched since the last settle(), each once
  std::vector<bool> link_dirty_;
  std::vector<char> binding_before_;  // per dirty link: binding() when first touched since the last settle
  std::vector<std::uint32_t> started_;  // flows started since the last settle
  // Per link: summed weight x rate cap of its finite-capped flows, and how many flows have no cap. A
  // running sum, so binding() leaves a margin far above its rounding (and it restarts at 0 when empty).
  std::vector<double> cap_load_;
  std::vector<std::uint32_t> unbounded_on_;
  static constexpr double kBindingMargin = 1e-6;
  std::vector<std::uint32_t> trace_links_;
  // Certifying a partial re-solve (grow_until_certified).
  std::vector<std::uint32_t> use_mark_;  // per link: == check_epoch_ once its use is computed
  std::vector<LinkUse> link_use_;
  std::uint32_t check_epoch_ = 0;
  std::vector<std::uint32_t> uncertified_;
  // Per link: == check_epoch_ when its flows or their rates differ from the last settle's (those
  // links alone can break a certificate that held there).
  std::vector<std::uint32_t> changed_mark_;
  std::vector<std::uint32_t> rechecked_;  // flows whose certificate this check searched afresh
  // Relative slack of the certificate's comparisons: far above the solver's rounding (kSaturationSlack
  // 1e-12 and sums of a few rates), far below what moves a finish time by a picosecond on a microsecond.
  static constexpr double kCertifyTolerance = 1e-10;
  // Per link of the component being solved that stands for itself: its constraint index, valid while
  // `epoch` is epoch_ (one lookup per link of a flow's path).
  struct LocalIndex {
    std::uint32_t epoch = 0, index = 0;
  };
  std::vector<LocalIndex> local_index_;
  MaxMinProblem problem_;  // rebuilt per re-solve; kept to reuse its allocations
  MaxMinSolver solver_;
  Trace* trace_ = nullptr;
  std::vector<int> link_tracks_;
  Resolve resolve_;
};

}  // namespace ccforge::sim
