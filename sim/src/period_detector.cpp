#include "period_detector.hpp"

#include <algorithm>
#include <utility>

namespace ccforge::sim {

PeriodDetector::PeriodDetector(const TaskGraph& graph, const Successors& successors, const std::vector<std::uint32_t>& pending,
                               const std::vector<SimTime>& ready_at, const FlowNetwork& network)
    : pending_(pending), ready_at_(ready_at), network_(network), blocks_(graph.repeated()) {
  declared_ = blocks_.size > 0;
  active_ = has_repeated_structure(graph, successors, reach_);

  if (!active_) return;
  prologue_left_ = blocks_.first;
  done_in_block_.assign(blocks_.count, 0);
}

bool PeriodDetector::has_repeated_structure(const TaskGraph& graph, const Successors& successors, std::uint32_t& reach) {
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
  // Per block, its incoming edges as (task in block, predecessor relative to the block's start). Edges
  // may reach back `reach` blocks (buffer-slot back-pressure): blocks from `reach` on must all have the
  // same edges; the earlier ones lack those that would point before the first block.
  std::vector<std::vector<std::pair<TaskId, std::int64_t>>> edges(r.count);
  std::int64_t back = 0;
  for (TaskId before = 0; before < graph.size(); ++before) {
    for (std::uint32_t i = successors.offset[before]; i < successors.offset[before + 1]; ++i) {
      const TaskId after = successors.target[i];
      if (after < r.first) {
        if (before >= r.first) return false;
        continue;
      }
      const std::uint32_t b = (after - r.first) / r.size;
      const std::int64_t base = r.first + static_cast<std::int64_t>(b) * r.size;
      const std::int64_t rel = static_cast<std::int64_t>(before) - base;
      if (before < r.first) {
        if (b != 0) return false;  // only the first block may wait for the prologue
        continue;
      }
      if (rel >= static_cast<std::int64_t>(r.size)) return false;
      back = std::max(back, -rel);
      edges[b].emplace_back(static_cast<TaskId>(after - base), rel);
    }
  }
  reach = static_cast<std::uint32_t>(std::max<std::int64_t>(1, (back + r.size - 1) / r.size));
  if (reach + 2 > r.count) return false;
  for (auto& list : edges) std::sort(list.begin(), list.end());
  for (std::uint32_t b = reach + 1; b < r.count; ++b) {
    if (edges[b] != edges[reach]) return false;
  }
  // An early block has exactly the full set minus the edges that would reach before block 0.
  for (std::uint32_t b = 1; b < reach; ++b) {
    std::vector<std::pair<TaskId, std::int64_t>> expected;
    for (const auto& edge : edges[reach]) {
      if (edge.second >= -static_cast<std::int64_t>(b) * r.size) expected.push_back(edge);
    }
    if (edges[b] != expected) return false;
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
  // The first `reach_` blocks lack predecessor blocks, so their waiting tasks are not comparable with
  // later ones.
  if (prologue_left_ > 0 || lowest_open_ < reach_) {
    history_.clear();
    return;
  }
  // Only cuts of consecutive blocks are kept: a skipped cut (two blocks starting in one instant) ends the
  // run of comparable ones.
  if (!history_.empty() && history_.back().block + 1 != block) history_.clear();
  take(current_, block, now);
  widths_.push_back(current_.hi - current_.lo);
  // The smallest repeat wins: interleaved pipelines (e.g. a ring whose slots alternate between two
  // iterations) repeat every few blocks rather than every block.
  for (std::size_t back = 1; back <= history_.size() && !period_; ++back) {
    const Snapshot& earlier = history_[history_.size() - back];
    if (repeats(earlier, current_)) {
      period_ = Period{earlier.block, current_.at - earlier.at, static_cast<std::uint32_t>(back)};
    }
  }
  if (history_.size() == kMaxPeriodBlocks) {
    // Drop the oldest and keep its storage for the next cut.
    std::rotate(history_.begin(), history_.begin() + 1, history_.end());
    std::swap(history_.back(), current_);
  } else {
    history_.push_back(current_);
  }
}

void PeriodDetector::take(Snapshot& s, std::uint32_t block, SimTime now) const {
  s.block = block;
  s.at = now;
  s.lo = lowest_open_;
  // Edges reach at most `reach_` blocks ahead, so no task further past the highest ready block has been
  // touched yet.
  s.hi = std::min(highest_ready_ + reach_, blocks_.count - 1);
  s.entries.clear();
  // States over windows of different widths differ; skip the copy (a window that keeps growing, a
  // producer running ahead of its consumers, would make every cut cost more than the iteration).
  const bool comparable = history_.empty() || std::any_of(history_.begin(), history_.end(), [&](const Snapshot& h) {
                            return h.hi - h.lo == s.hi - s.lo;
                          });
  if (!comparable) return;
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
         !earlier.entries.empty() && earlier.entries == later.entries;
}

}  // namespace ccforge::sim
