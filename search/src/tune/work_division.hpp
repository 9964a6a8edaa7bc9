// A tune's work items dealt among the processes of its job (TuneOptions::share), and their results
// joined: the one pattern of candidate proving, time floors and simulations (each deals its items,
// does this process's, records them, then joins). Items are dealt round-robin by their index in a
// list every process builds identically (neighbouring items cost alike, so each process gets a
// similar load), and results travel as
// checkpoint lines that every process journals: after a join all processes hold the same results, so
// every later decision (waves, pruning, ties) is the one a single process makes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ccforge/search/search.hpp"
#include "ccforge/search/work_share.hpp"
#include "tune/checkpoint.hpp"

namespace ccforge::search {

class WorkDivision {
 public:
  explicit WorkDivision(const WorkShare* share) : share_(share) {}

  bool alone() const { return share_ == nullptr || share_->size() == 1; }
  int rank() const { return share_ ? share_->rank() : 0; }
  int size() const { return share_ ? share_->size() : 1; }
  bool lead() const { return rank() == 0; }

  // The next `count` items, as indices 0 .. count - 1 (ascending): this process's and the others'. Each
  // deal goes on where the last one ended, so small deals (one wave's few simulations) spread too.
  struct Deal {
    std::vector<std::size_t> mine, theirs;
  };
  Deal deal(std::size_t count) {
    Deal d;
    for (std::size_t k = 0; k < count; ++k, ++dealt_)
      (alone() || dealt_ % static_cast<std::size_t>(size()) == static_cast<std::size_t>(rank()) ? d.mine : d.theirs).push_back(k);
    return d;
  }

  // Collective: sends the checkpoint line of each of this process's items (`line_of(k)` for k in
  // `mine`) and journals every other process's; does nothing alone.
  template <typename LineOf>
  void join(const std::vector<std::size_t>& mine, LineOf&& line_of, CheckpointJournal& journal) const {
    if (alone()) return;
    std::string lines;
    for (std::size_t k : mine) lines += line_of(k);
    const std::vector<std::string> parts = share_->all_gather(lines);
    for (std::size_t r = 0; r < parts.size(); ++r)
      if (static_cast<int>(r) != rank()) journal.absorb(parts[r]);
  }

  // Collective: every process's `mine`, in rank order ({mine} alone).
  std::vector<std::string> gather(const std::string& mine) const { return alone() ? std::vector{mine} : share_->all_gather(mine); }

 private:
  const WorkShare* share_;
  std::size_t dealt_ = 0;  // items dealt so far
};

// Collective: result.processes from every process's usage so far (CPU, peak memory, `simulated` by
// it, its proven and resumed counts), and result's points_proven and resumed counts summed over the job.
void join_process_usage(const WorkDivision& division, std::size_t simulated, TuneResult& result);

}  // namespace ccforge::search
