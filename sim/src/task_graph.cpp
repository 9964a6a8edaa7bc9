#include "task_graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccforge::sim {
namespace {

// An edge into a block, both ends relative to that block's start (`before` is negative when it comes
// from an earlier block).
struct RelativeEdge {
  std::int64_t before;
  TaskId after;
  bool operator==(const RelativeEdge&) const = default;
};

bool same_task(const Task& x, const Task& y, bool but_bytes) {
  return x.path == y.path && x.rate_cap == y.rate_cap && x.weight == y.weight && x.track == y.track &&
         x.label == y.label && (but_bytes || (x.delay == y.delay && x.wire_bytes == y.wire_bytes));
}

}  // namespace

bool TaskGraph::fold_into_loop(std::uint32_t lowered, std::uint32_t blocks) {
  if (sealed_ || lowered < 2 || blocks == 0 || tasks_.empty() || tasks_.size() % lowered != 0) return false;
  const auto size = static_cast<TaskId>(tasks_.size() / lowered);
  const TaskId kept = (lowered - 2) * size;
  const TaskId last = (lowered - 1) * size;
  for (TaskId t = 0; t < tasks_.size(); ++t) {
    const TaskId k = t % size;
    if (!same_task(tasks_[t], tasks_[kept + k], t >= last)) return false;
    if (args(t).peer != args(kept + k).peer || args(t).chunk != args(kept + k).chunk) return false;
  }
  // Each block's incoming edges in the order they were added (the order the engine visits them in).
  std::vector<std::vector<RelativeEdge>> incoming(lowered);
  for (const Edge& e : edges_) {
    const std::uint32_t b = e.after / size;
    const std::int64_t base = static_cast<std::int64_t>(b) * size;
    const std::int64_t before = static_cast<std::int64_t>(e.before) - base;
    if (before >= static_cast<std::int64_t>(size)) return false;  // from a later block
    incoming[b].push_back({before, static_cast<TaskId>(e.after - base)});
  }
  for (std::uint32_t b = 0; b + 1 < lowered; ++b) {
    std::vector<RelativeEdge> expected;
    for (const RelativeEdge& e : incoming.back()) {
      if (e.before >= -static_cast<std::int64_t>(b) * size) expected.push_back(e);
    }
    if (incoming[b] != expected) return false;
  }
  // Successor lists of the kept block: each edge into the last block, from task k of the block d back,
  // becomes a successor of k at d blocks ahead; nearest blocks first, in the order added within one.
  struct Successor {
    TaskId from;
    std::uint32_t ahead;
    TaskId target;  // relative to the start of `from`'s block
  };
  std::vector<Successor> succ;
  reach_ = 0;
  for (const RelativeEdge& e : incoming.back()) {
    const auto ahead = static_cast<std::uint32_t>(e.before < 0 ? (-e.before + size - 1) / size : 0);
    reach_ = std::max(reach_, ahead);
    succ.push_back({static_cast<TaskId>(e.before + static_cast<std::int64_t>(ahead) * size), ahead, e.after + ahead * size});
  }
  std::stable_sort(succ.begin(), succ.end(),
                   [](const Successor& x, const Successor& y) { return x.from != y.from ? x.from < y.from : x.ahead < y.ahead; });
  succ_offset_.assign(size + 1, 0);
  succ_target_.clear();
  for (const Successor& s : succ) {
    ++succ_offset_[s.from + 1];
    succ_target_.push_back(s.target);
  }
  for (TaskId k = 0; k < size; ++k) succ_offset_[k + 1] += succ_offset_[k];

  last_.assign(tasks_.begin() + last, tasks_.end());
  tasks_.erase(tasks_.begin() + kept + size, tasks_.end());
  tasks_.erase(tasks_.begin(), tasks_.begin() + kept);
  tasks_.shrink_to_fit();
  if (args_.size() > kept) {
    args_.erase(args_.begin(), args_.begin() + kept);
    args_.resize(size);
  } else {
    args_.clear();
  }
  std::vector<Edge>().swap(edges_);
  block_size_ = size;
  blocks_ = blocks;
  looped_ = true;
  sealed_ = true;
  return true;
}

void TaskGraph::seal() {
  if (sealed_) return;
  sealed_ = true;
  succ_offset_.assign(tasks_.size() + 1, 0);
  for (const Edge& e : edges_) ++succ_offset_[e.before + 1];
  for (std::size_t i = 0; i < tasks_.size(); ++i) succ_offset_[i + 1] += succ_offset_[i];
  succ_target_.resize(edges_.size());
  std::vector<std::uint32_t> fill(succ_offset_.begin(), succ_offset_.end() - 1);
  for (const Edge& e : edges_) succ_target_[fill[e.before]++] = e.after;
  // The successor lists replace the edges: a large graph does not hold both forms.
  std::vector<Edge>().swap(edges_);
}

std::vector<std::uint32_t> TaskGraph::predecessor_counts() const {
  if (!sealed_) throw std::logic_error("TaskGraph::predecessor_counts before seal()");
  std::vector<std::uint32_t> count(size(), 0);
  for (TaskId t = 0; t < size(); ++t) for_each_successor(t, [&](TaskId s) { ++count[s]; });
  return count;
}

}  // namespace ccforge::sim
