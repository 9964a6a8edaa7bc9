#include "period_detector.hpp"

#include <algorithm>
#include <utility>

namespace ccforge::sim {

PeriodDetector::PeriodDetector(const TaskGraph& graph, const std::vector<std::uint32_t>& pending,
                               const std::vector<SimTime>& ready_at, const FlowNetwork& network)
    : pending_(pending), ready_at_(ready_at), network_(network), blocks_(graph.repeated()) {
  active_ = has_repeated_structure(graph);
  if (!active_) return;
  prologue_left_ = blocks_.first;
  done_in_block_.assign(blocks_.count, 0);
}

bool PeriodDetector::has_repeated_structure(const TaskGraph& graph) {
  const RepeatedBlocks& r = graph.repeated();
  if (r.size == 0 || r.count < 3) return false;
  const std::uint64_t end = r.first + static_cast<std::uint64_t>(r.size) * r.count;
  if (end != graph.size()) return false;
  const std::vector<Task>& tasks = graph.tasks();
  for (std::uint32_t b = 1; b < r.count; ++b) {
    const bool last = b + 1 == r.count;  // may be a partial tile: bytes and byte-dependent delays differ
    for (TaskId k = 0; k < r.size; ++k) {
      const Task& x = tasks[r.first + k];
      const Task& y = tasks[r.first + b * r.size + k];
      if (x.path != y.path || x.rate_cap != y.rate_cap || x.weight != y.weight || x.track != y.track ||
          x.label != y.label)
        return false;
      if (!last && (x.delay != y.delay || x.wire_bytes != y.wire_bytes)) return false;
    }
  }
  // Per block, its incoming edges as (task in block, predecessor relative to the block's start).
  std::vector<std::vector<std::pair<TaskId, std::int64_t>>> edges(r.count);
  for (const TaskGraph::Edge& e : graph.edges()) {
    if (e.after < r.first) {
      if (e.before >= r.first) return false;
      continue;
    }
    const std::uint32_t b = (e.after - r.first) / r.size;
    const std::int64_t base = r.first + static_cast<std::int64_t>(b) * r.size;
    const std::int64_t rel = static_cast<std::int64_t>(e.before) - base;
    if (e.before < r.first) {
      if (b != 0) return false;  // only the first block may wait for the prologue
      continue;
    }
    if (rel < -static_cast<std::int64_t>(r.size) || rel >= static_cast<std::int64_t>(r.size)) return false;
    edges[b].emplace_back(static_cast<TaskId>(e.after - base), rel);
  }
  for (auto& list : edges) std::sort(list.begin(), list.end());
  for (std::uint32_t b = 2; b < r.count; ++b) {
    if (edges[b] != edges[1]) return false;
  }
  return true;
}

void PeriodDetector::on_ready(TaskId t) {
  if (!active_ || !in_blocks(t)) return;
  const std::uint32_t b = block_of(t);
  highest_ready_ = std::max(highest_ready_, b);
  if ((t - blocks_.first) % blocks_.size == 0) cut_due_ = b;
  if (b + 1 == blocks_.count) last_started_ = true;
}

void PeriodDetector::on_done(TaskId t) {
  if (!active_) return;
  if (!in_blocks(t)) {
    --prologue_left_;
    return;
  }
  ++done_in_block_[block_of(t)];
  while (lowest_open_ < blocks_.count && done_in_block_[lowest_open_] == blocks_.size) ++lowest_open_;
}

void PeriodDetector::at_quiet_point(SimTime now) {
  if (!active_ || period_ || !cut_due_) return;
  const std::uint32_t block = *cut_due_;
  cut_due_.reset();
  if (last_started_) {  // past the horizon: the last block may differ, so nothing more can be proven
    active_ = false;
    return;
  }
  // The first block has no predecessor block, so its waiting tasks are not comparable with later ones.
  if (prologue_left_ > 0 || lowest_open_ == 0) {
    have_previous_ = false;
    return;
  }
  take(current_, block, now);
  widths_.push_back(current_.hi - current_.lo);
  if (have_previous_ && previous_.block + 1 == block && repeats(previous_, current_)) {
    period_ = Period{previous_.block, current_.at - previous_.at};
  }
  std::swap(previous_, current_);
  have_previous_ = true;
}

void PeriodDetector::take(Snapshot& s, std::uint32_t block, SimTime now) const {
  s.block = block;
  s.at = now;
  s.lo = lowest_open_;
  // Edges reach at most one block ahead, so no task past the block after the highest ready one has
  // been touched yet.
  s.hi = std::min(highest_ready_ + 1, blocks_.count - 1);
  s.entries.clear();
  // States over windows of different widths differ; skip the copy (a window that keeps growing, a
  // producer running ahead of its consumers, would make every cut cost more than the iteration).
  if (!have_previous_ || previous_.hi - previous_.lo != s.hi - s.lo) return;
  const TaskId begin = blocks_.first + s.lo * blocks_.size;
  const TaskId end = blocks_.first + (s.hi + 1) * blocks_.size;
  for (TaskId t = begin; t < end; ++t) {
    Entry e;
    e.pending = pending_[t];
    if (e.pending == 0) {
      const FlowNetwork::FlowState f = network_.state(t);
      if (f.active) {
        e.phase = 2;
        e.since_ps = (f.updated - now).ps;
        e.remaining = f.remaining;
        e.rate = f.rate;
      } else {
        e.phase = 1;
        e.since_ps = (ready_at_[t] - now).ps;
      }
    }
    s.entries.push_back(e);
  }
}

bool PeriodDetector::repeats(const Snapshot& earlier, const Snapshot& later) {
  return earlier.lo + later.block == later.lo + earlier.block && earlier.hi + later.block == later.hi + earlier.block &&
         earlier.entries == later.entries;
}

}  // namespace ccforge::sim
