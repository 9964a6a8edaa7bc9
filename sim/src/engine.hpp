// Runs a TaskGraph: the discrete-event loop. Tasks become ready when their predecessors finish, wait
// out their delay (alpha) on a timer, then join the flow network until their bytes are through.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ccforge/common/units.hpp"
#include "period_detector.hpp"
#include "task_graph.hpp"

namespace ccforge::sim {

struct Trace;

struct EngineStats {
  SimTime makespan;
  std::uint64_t events = 0;  // task starts and flow completions (stale predictions excluded)
  std::uint64_t transfers = 0;
  std::size_t unfinished = 0;  // tasks that never ran: a dependency cycle or a zero-capacity path
  TaskId first_unfinished = 0;
  // Set when the graph is a loop (TaskGraph::fold_into_loop) and the run provably became periodic
  // before its last block started (period_detector.hpp).
  std::optional<Period> period;
  bool widening = false;  // no period, and none coming (PeriodDetector::widening)
  // Stopped once no period could be proven any more (PeriodDetector::hopeless): only `period` (empty)
  // and `widening` mean anything.
  bool abandoned = false;
  std::uint64_t blocks_extrapolated = 0;  // blocks whose time run_extrapolated() added in closed form
};

struct EngineLinks {
  std::vector<double> capacity;  // bytes/s per link
  std::vector<int> trace_tracks;  // per link, used only when tracing
};

// Seals `graph` (TaskGraph::seal) and runs it; a loop may run again with another number of blocks.
EngineStats run_task_graph(TaskGraph& graph, const EngineLinks& links, Trace* trace);
inline EngineStats run_task_graph(TaskGraph&& graph, const EngineLinks& links, Trace* trace) {
  return run_task_graph(graph, links, trace);
}

// A loop of `blocks` identical iterations (the last may be partial), simulated in O(1) iterations where
// the run provably becomes periodic. `run(n)` must simulate the loop's first n - 1 iterations plus its
// last one, as a TaskGraph loop of n blocks. Tries n = 8, 32, ... and returns the first run that
// proves a period (its makespan plus (blocks - n) periods: exact, see period_detector.hpp), else the
// full run (also when `extrapolate` is false, a short run leaves tasks unfinished, or one shows a
// producer still gaining on its consumers).
EngineStats run_extrapolated(std::uint64_t blocks, bool extrapolate, const std::function<EngineStats(std::uint64_t)>& run);

}  // namespace ccforge::sim
