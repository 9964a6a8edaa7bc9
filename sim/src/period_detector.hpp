// Proves that a run of a loop (TaskGraph::fold_into_loop, e.g. the executor's tile iterations) has
// become exactly periodic, so that the rest can be added in closed form instead of simulated.
//
// At a quiet point (between instants, all rates settled) the engine's whole state is: each task's
// pending-predecessor count, each ready task's delay start, each flow's remaining bytes, rate and last
// update. What happens next depends only on that state and the graph ahead (within an instant the order
// of events does not matter, as the network is re-solved once per instant). A cut is taken at the first
// quiet point after block b's first task became ready. If the state at cut b+p, read relative to block
// b+p and the cut's time, equals the state at cut b read relative to block b, then from cut b+p the run
// repeats the run from cut b p blocks and P = t(b+p) - t(b) later, bit for bit. When the last block
// (the one that may be a partial tile) has not started by cut b+p, a run over n > count blocks, with
// n - count a multiple of p, therefore ends exactly (n - count) / p * P later than this one (see
// sim/README.md, "Speed"). Edges may reach back a bounded number of blocks (buffer-slot back-pressure).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ccforge/common/units.hpp"
#include "flow_network.hpp"
#include "task_graph.hpp"

namespace ccforge::sim {

struct Period {
  std::uint32_t block = 0;   // the state at block + blocks' cut repeats the state at block's cut
  SimTime length;            // time between those cuts
  std::uint32_t blocks = 1;  // blocks per period
};

class PeriodDetector {
 public:
  static constexpr std::uint32_t kDone = 0xffffffffu;

  // Inactive unless the graph is a loop run to find a period (TaskGraph::set_run) of at least three
  // blocks, two more than it reaches back.
  PeriodDetector(const TaskGraph& graph, const std::vector<std::uint32_t>& pending, const std::vector<SimTime>& ready_at,
                 const FlowNetwork& network);

  bool active() const { return active_; }
  // The run is to find a period, but can no longer prove one (the last block has started, or the loop
  // is too short to): its makespan will not be used, so the engine may stop it.
  bool hopeless() const { return declared_ && !active_ && !period_; }
  void on_ready(TaskId t);
  void on_done(TaskId t);
  // Called at every quiet point; takes the pending cut, if any.
  void at_quiet_point(SimTime now);
  const std::optional<Period>& period() const { return period_; }
  // The span of iterations in flight was still growing over the second half of the cuts: a producer
  // keeps gaining on its consumers, so no later cut will repeat an earlier one. Judged over 8 cuts per
  // block of reach: a producer may legitimately fill `reach_` blocks of buffer slots before it settles.
  bool widening() const {
    return widths_.size() >= 8 * reach_ && widths_.back() > widths_[widths_.size() / 2];
  }

 private:
  // One task's state relative to a cut.
  struct Entry {
    std::uint32_t pending = 0;  // kDone when finished
    std::uint8_t phase = 0;     // 0 waiting or done, 1 in its delay, 2 moving bytes
    std::int64_t since_ps = 0;  // delay start or last rate change, minus the cut time
    double remaining = 0.0;
    double rate = 0.0;
    bool operator==(const Entry&) const = default;
  };
  struct Snapshot {
    std::uint32_t block = 0;
    SimTime at;
    std::uint32_t lo = 0, hi = 0;  // blocks covered
    std::vector<Entry> entries;
  };

  std::uint32_t block_of(TaskId t) const { return t / size_; }
  void take(Snapshot& s, std::uint32_t block, SimTime now) const;
  static bool repeats(const Snapshot& earlier, const Snapshot& later);

  const std::vector<std::uint32_t>& pending_;
  const std::vector<SimTime>& ready_at_;
  const FlowNetwork& network_;
  TaskId size_ = 1;          // tasks per block
  std::uint32_t count_ = 0;  // blocks
  bool declared_ = false;    // the run is to find a period
  bool active_ = false;
  std::uint32_t reach_ = 1;  // the loop's reach, at least 1
  std::vector<std::uint32_t> done_in_block_;
  std::uint32_t lowest_open_ = 0;          // lowest block with a task not done
  std::uint32_t highest_ready_ = 0;        // highest block with a task made ready
  std::optional<std::uint32_t> cut_due_;   // block whose cut the next quiet point takes
  bool last_started_ = false;
  std::vector<std::uint32_t> widths_;      // blocks in flight at each cut
  // Repeats over more blocks than this are not looked for (a cut costs a copy per kept snapshot).
  static constexpr std::size_t kMaxPeriodBlocks = 4;
  std::vector<Snapshot> history_;  // the latest cuts of consecutive blocks, oldest first
  Snapshot current_;
  std::optional<Period> period_;
};

}  // namespace ccforge::sim
