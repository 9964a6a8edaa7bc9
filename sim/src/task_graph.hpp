// The engine's input: a DAG of tasks. A task waits for its predecessors, pays a fixed delay (alpha:
// protocol step latency plus route latency, or the whole cost of a local operation), then, if it has a
// path, pushes its wire bytes through the links, sharing them max-min fairly with other flows.
// Both MSCCL algorithms and NCCL's own algorithms are lowered to this form.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ccforge/common/units.hpp"

namespace ccforge::sim {

using TaskId = std::uint32_t;
using PathId = std::uint32_t;
inline constexpr PathId kNoPath = std::numeric_limits<PathId>::max();

struct Task {
  SimTime delay;
  double wire_bytes = 0.0;  // payload divided by the protocol's wire efficiency
  double rate_cap = std::numeric_limits<double>::infinity();  // wire bytes/s one threadblock sustains
  PathId path = kNoPath;    // links crossed; kNoPath for local work
  double weight = 1.0;      // identical parallel flows this task stands for (symmetric NCCL channels)
  int track = -1;           // trace track of the issuing threadblock, -1 for none
  std::uint32_t label = 0;  // index into TaskGraph::labels (trace slice name)
};

// Tasks [first, first + size * count) are `count` copies of one block of work (an executor loop
// iteration): task first + b * size + k of block b plays the part of task k; each block's edges come
// from itself or the block before, the same for every block but the first (which has nothing before
// it); only the last block's bytes and delays may differ (a partial tile). Any other task must come
// before `first`. Declaring this lets the engine detect an exactly periodic regime (period_detector.hpp).
struct RepeatedBlocks {
  TaskId first = 0;
  TaskId size = 0;
  std::uint32_t count = 0;
};

// What a trace slice says about its task beyond the task itself: the rank a transfer goes to and the
// chunk a step moves (the MSCCL step's offset); -1 where not known. Kept apart from Task and filled
// only when tracing, so untraced simulations of large graphs pay nothing for it.
struct TaskArgs {
  int peer = -1;
  int chunk = -1;
};

// Successor lists in compressed form (one allocation for the whole graph): task t's successors are
// target[offset[t] .. offset[t + 1]).
struct Successors {
  std::vector<std::uint32_t> offset;
  std::vector<TaskId> target;
};

class TaskGraph {
 public:
  TaskId add(const Task& task) {
    tasks_.push_back(task);
    return static_cast<TaskId>(tasks_.size() - 1);
  }
  void depend(TaskId before, TaskId after) { edges_.push_back({before, after}); }
  void set_repeated(const RepeatedBlocks& blocks) { repeated_ = blocks; }
  const RepeatedBlocks& repeated() const { return repeated_; }
  PathId add_path(std::vector<std::uint32_t> links) {
    paths_.push_back(std::move(links));
    return static_cast<PathId>(paths_.size() - 1);
  }
  std::uint32_t add_label(std::string label) {
    labels_.push_back(std::move(label));
    return static_cast<std::uint32_t>(labels_.size() - 1);
  }

  const std::vector<Task>& tasks() const { return tasks_; }
  const std::vector<std::vector<std::uint32_t>>& paths() const { return paths_; }
  const std::vector<std::string>& labels() const { return labels_; }
  struct Edge {
    TaskId before;
    TaskId after;
  };
  const std::vector<Edge>& edges() const { return edges_; }
  // Moves the edges out as successor lists (what the engine walks) and counts each task's predecessors
  // into `pending`; the graph keeps no edges, so a large graph does not hold both forms at once.
  Successors take_successors(std::vector<std::uint32_t>& pending);
  std::size_t size() const { return tasks_.size(); }
  void set_peer(TaskId t, int peer) { args_at(t).peer = peer; }
  void set_chunk(TaskId t, int chunk) { args_at(t).chunk = chunk; }
  TaskArgs args(TaskId t) const { return t < args_.size() ? args_[t] : TaskArgs{}; }

 private:
  std::vector<Task> tasks_;
  std::vector<Edge> edges_;
  std::vector<std::vector<std::uint32_t>> paths_;
  std::vector<std::string> labels_;
  RepeatedBlocks repeated_;
  std::vector<TaskArgs> args_;  // by TaskId; shorter than tasks_ where the rest have none

  TaskArgs& args_at(TaskId t) {
    if (t >= args_.size()) args_.resize(t + 1);
    return args_[t];
  }
};

}  // namespace ccforge::sim
