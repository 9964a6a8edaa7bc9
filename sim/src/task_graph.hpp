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

// What a trace slice says about its task beyond the task itself: the rank a transfer goes to and the
// chunk a step moves (the MSCCL step's offset); -1 where not known. Kept apart from Task and filled
// only when tracing, so untraced simulations of large graphs pay nothing for it.
struct TaskArgs {
  int peer = -1;
  int chunk = -1;
};

// A graph is built task by task (add, depend), then run. It may instead be a loop (fold_into_loop):
// tasks [0, block_size * blocks) are `blocks` copies of one block of work (an executor tile
// iteration), task b * block_size + k of block b playing the part of task k, whose edges come from
// its own block or at most reach() blocks before, the same for every block; a block near the start
// lacks the edges that would come from before block 0; only the last block's bytes and delays may
// differ (a partial tile). A loop stores one block's tasks and edges (and the last block's tasks), so
// its size in memory does not grow with the number of blocks, and the engine can prove it periodic
// (period_detector.hpp). A graph built task by task is one block run once.
class TaskGraph {
 public:
  TaskId add(const Task& task) {
    tasks_.push_back(task);
    block_size_ = static_cast<TaskId>(tasks_.size());
    return block_size_ - 1;
  }
  void depend(TaskId before, TaskId after) { edges_.push_back({before, after}); }
  PathId add_path(std::vector<std::uint32_t> links) {
    paths_.push_back(std::move(links));
    return static_cast<PathId>(paths_.size() - 1);
  }
  std::uint32_t add_label(std::string label) {
    labels_.push_back(std::move(label));
    return static_cast<std::uint32_t>(labels_.size() - 1);
  }
  void set_peer(TaskId t, int peer) { args_at(t).peer = peer; }
  void set_chunk(TaskId t, int chunk) { args_at(t).chunk = chunk; }

  // The tasks added so far are `lowered` blocks of equal size (the last possibly a partial tile): keeps
  // block lowered - 2's tasks, the last block's and the last block's edges as the loop's, and sets
  // `blocks`. Returns false and leaves the graph as it is unless every block's tasks equal the kept
  // block's (the last's but for bytes and delays) and every block's edges are the last block's, less
  // those that would reach before block 0. That the blocks after `lowered` would repeat the kept one
  // is the caller's to know (the MSCCL lowering checks that its state between iterations repeats).
  bool fold_into_loop(std::uint32_t lowered, std::uint32_t blocks);
  // A loop's run: its first `blocks` - 1 blocks and its last. `find_period`: the engine looks for a
  // period (period_detector.hpp) and stops the run once none can be proven any more (a try of
  // run_extrapolated, whose makespan is of no use without one).
  void set_run(std::uint32_t blocks, bool find_period) {
    blocks_ = blocks;
    find_period_ = find_period;
  }
  bool is_loop() const { return looped_; }
  bool finds_period() const { return looped_ && find_period_; }
  TaskId block_size() const { return block_size_; }
  std::uint32_t blocks() const { return blocks_; }
  // How many blocks back the furthest edge into a block comes from (0: none).
  std::uint32_t reach() const { return reach_; }

  // Every task of the run: block_size() * blocks().
  std::size_t size() const { return static_cast<std::size_t>(block_size_) * blocks_; }
  const Task& task(TaskId t) const {
    const std::uint32_t b = block_of(t);
    const TaskId k = t - b * block_size_;
    return b + 1 == blocks_ && !last_.empty() ? last_[k] : tasks_[k];
  }
  // The stored tasks: every task of a graph built task by task, one block of a loop.
  const std::vector<Task>& tasks() const { return tasks_; }
  const std::vector<std::vector<std::uint32_t>>& paths() const { return paths_; }
  const std::vector<std::string>& labels() const { return labels_; }
  TaskArgs args(TaskId t) const {
    const TaskId k = t - block_of(t) * block_size_;
    return k < args_.size() ? args_[k] : TaskArgs{};
  }

  // Turns the edges into successor lists (once; the graph then takes no more tasks or edges).
  void seal();
  // Calls f(s) for each successor s of task t within the run (sealed graphs only).
  template <typename F>
  void for_each_successor(TaskId t, F&& f) const {
    const std::uint32_t b = block_of(t);
    const TaskId base = b * block_size_;
    const TaskId end = static_cast<TaskId>(size());
    for (std::uint32_t i = succ_offset_[t - base]; i < succ_offset_[t - base + 1]; ++i) {
      const TaskId s = base + succ_target_[i];
      if (s >= end) break;  // listed by block, nearest first: the rest lie past the last block too
      f(s);
    }
  }
  // Each task's number of predecessors within the run (sealed graphs only).
  std::vector<std::uint32_t> predecessor_counts() const;

 private:
  struct Edge {
    TaskId before;
    TaskId after;
  };
  std::uint32_t block_of(TaskId t) const { return blocks_ == 1 ? 0 : t / block_size_; }
  TaskArgs& args_at(TaskId t) {
    if (t >= args_.size()) args_.resize(t + 1);
    return args_[t];
  }

  std::vector<Task> tasks_;
  std::vector<Task> last_;  // a loop's last block, when it differs
  std::vector<Edge> edges_;  // until sealed
  // Successors of the stored block's task k: succ_target_[succ_offset_[k] .. succ_offset_[k + 1]),
  // each relative to the start of k's block (so a loop's edge into a later block lies past the block).
  std::vector<std::uint32_t> succ_offset_;
  std::vector<TaskId> succ_target_;
  std::vector<std::vector<std::uint32_t>> paths_;
  std::vector<std::string> labels_;
  std::vector<TaskArgs> args_;  // by stored task; shorter than tasks_ where the rest have none
  TaskId block_size_ = 0;
  std::uint32_t blocks_ = 1;
  std::uint32_t reach_ = 0;
  bool looped_ = false;
  bool find_period_ = false;
  bool sealed_ = false;
};

}  // namespace ccforge::sim
