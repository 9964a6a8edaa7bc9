#include "period_detector.hpp"

#include <algorithm>
#include <utility>

namespace ccforge::sim {

PeriodDetector::PeriodDetector(const TaskGraph& graph, const std::vector<std::uint32_t>& pending,
                               const std::vector<SimTime>& ready_at, const FlowNetwork& network)
    : pending_(pending),
      ready_at_(ready_at),
      network_(network),
      size_(graph.block_size()),
      count_(graph.blocks()),
      declared_(graph.finds_period()),
      reach_(std::max<std::uint32_t>(1, graph.reach())) {
  active_ = declared_ && size_ > 0 && count_ >= 3 && reach_ + 2 <= count_;
  if (active_) done_in_block_.assign(count_, 0);
}

void PeriodDetector::on_ready(TaskId t) {
  if (!active_) return;
  const std::uint32_t b = block_of(t);
  highest_ready_ = std::max(highest_ready_, b);
  if (t % size_ == 0) cut_due_ = b;
  if (b + 1 == count_) last_started_ = true;
}

void PeriodDetector::on_done(TaskId t) {
  if (!active_) return;
  ++done_in_block_[block_of(t)];
  while (lowest_open_ < count_ && done_in_block_[lowest_open_] == size_) ++lowest_open_;
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
  if (lowest_open_ < reach_) {
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
  s.hi = std::min(highest_ready_ + reach_, count_ - 1);
  s.entries.clear();
  // States over windows of different widths differ; skip the copy (a window that keeps growing, a
  // producer running ahead of its consumers, would make every cut cost more than the iteration).
  const bool comparable = history_.empty() || std::any_of(history_.begin(), history_.end(), [&](const Snapshot& h) {
                            return h.hi - h.lo == s.hi - s.lo;
                          });
  if (!comparable) return;
  const TaskId begin = s.lo * size_;
  const TaskId end = (s.hi + 1) * size_;
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
