// Runs a TaskGraph: the discrete-event loop. Tasks become ready when their predecessors finish, wait
// out their delay (alpha) on a timer, then join the flow network until their bytes are through.
#pragma once

#include <cstdint>
#include <vector>

#include "ccforge/common/units.hpp"
#include "task_graph.hpp"

namespace ccforge::sim {

struct Trace;

struct EngineStats {
  SimTime makespan;
  std::uint64_t events = 0;  // task starts and flow completions (stale predictions excluded)
  std::uint64_t transfers = 0;
  std::size_t unfinished = 0;  // tasks that never ran: a dependency cycle or a zero-capacity path
  TaskId first_unfinished = 0;
};

struct EngineLinks {
  std::vector<double> capacity;  // bytes/s per link
  std::vector<int> trace_tracks;  // per link, used only when tracing
};

EngineStats run_task_graph(const TaskGraph& graph, const EngineLinks& links, Trace* trace);

}  // namespace ccforge::sim
