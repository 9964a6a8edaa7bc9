// Links as shared resources: active flows get max-min fair rates, re-solved only for the connected
// component of flows and links touched when flows start or end (SimGrid's selective update), once per
// instant: starts and ends at one time only mark links dirty, and settle() re-solves them together
// before time moves on (rates at an instant depend only on the set of flows then, so this is exact).
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
    const Flow& f = flows_[flow];
    return FlowState{f.active, f.remaining, f.rate, f.updated};
  }

 private:
  struct Flow {
    const std::vector<std::uint32_t>* links = nullptr;
    double remaining = 0.0;
    double rate = 0.0;
    double cap = 0.0;
    double weight = 1.0;
    SimTime updated;
    std::uint32_t generation = 0;
    bool active = false;
  };
  void mark_dirty(const std::vector<std::uint32_t>& links);
  void collect_component(const std::vector<std::uint32_t>& seed_links);
  void apply_rate(std::uint32_t flow, double rate, SimTime now);
  void trace_loads(SimTime now);

  std::vector<double> capacity_;
  std::vector<std::vector<std::uint32_t>> flows_on_link_;
  std::vector<Flow> flows_;
  Reschedule reschedule_;
  // Component search scratch, reused: epoch marks clear in O(1).
  std::vector<std::uint32_t> link_mark_, flow_mark_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> comp_links_, comp_flows_;
  std::vector<std::uint32_t> dirty_links_;  // touched since the last settle(), each once
  std::vector<bool> link_dirty_;
  std::vector<std::uint32_t> local_index_;  // per link of the component being solved: its constraint index
  MaxMinProblem problem_;  // rebuilt per re-solve; kept to reuse its allocations
  MaxMinSolver solver_;
  Trace* trace_ = nullptr;
  std::vector<int> link_tracks_;
  Resolve resolve_;
};

}  // namespace ccforge::sim
