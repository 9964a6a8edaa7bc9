// Which simulations a tune runs at each size: per-candidate floors (its time at a smaller size and
// sim::time_floors, computed once per candidate and shared among the job's processes) order and prune
// the candidates, and SizeWaves hands out one size's simulations in waves that can still win.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <vector>

#include "ccforge/search/search.hpp"
#include "tune/checkpoint.hpp"
#include "tune/runner.hpp"

namespace ccforge::search {

// Per collective and candidate, times its simulation at size `s` cannot undercut: its own simulated
// time at the last smaller size (a larger call never runs faster; 0 when none; each collective raises
// its own as it finishes a size), and sim::time_floors at `s` (the sim's own capacity and latency
// bound; empty without pruning).
struct Floors {
  std::vector<std::vector<SimTime>> previous;
  std::vector<std::vector<std::vector<SimTime>>> model;  // per collective, candidate, size
  SimTime at(std::size_t c, std::size_t i, std::size_t s) const {
    return model[c][i].empty() ? previous[c][i] : std::max(previous[c][i], model[c][i][s]);
  }
};

// Fills floors.model: each candidate's sim::time_floors, taken from the journal where a killed run left
// them (counted in result.floors_resumed) and recorded there otherwise; this process computes its
// share of the candidates and receives the others'.
void compute_model_floors(Floors& floors, const Runner& runner, const TuneOptions& options, TuneResult& result,
                          CheckpointJournal& journal);

// Candidates per collective in the first wave after NCCL (the lowest floors); later waves double it.
// Small because floors order candidates well: the first finished time usually prunes the rest.
constexpr std::size_t kFirstWave = 1;

// Why candidates were skipped at one size.
struct PruneCounts {
  std::size_t above_best = 0, below_nccl_gain = 0, by_time_floor_only = 0;
};

// One size's simulations of `colls` in waves: NCCL for every collective first, then per collective the
// next candidates in floor order that can still win (floor not above the best finished time, and able
// to beat NCCL by min_gain), each wave twice as many as the last. Floors ascend along the order, so the
// first candidate that cannot win ends its collective's list. Decisions read only finished results of
// the collective's own jobs, so a collective's waves are the same whether others run beside it or not.
class SizeWaves {
 public:
  // nccl_done: NCCL's calls at this size were already simulated, so the first wave is the candidates'.
  SizeWaves(const TuneResult& r, const Floors& floors, const TuneOptions& options, std::size_t s,
            const std::vector<std::size_t>& colls, bool nccl_done = false)
      : floors_(floors), options_(options), s_(s), started_(nccl_done) {
    for (std::size_t c : colls) {
      Coll& pc = per_coll_.emplace_back();
      pc.c = c;
      pc.order.resize(r.collectives[c].candidates.accepted.size());
      std::iota(pc.order.begin(), pc.order.end(), 0);
      std::stable_sort(pc.order.begin(), pc.order.end(), [&](int a, int b) {
        return floors.at(c, static_cast<std::size_t>(a), s) < floors.at(c, static_cast<std::size_t>(b), s);
      });
      last_.push_back({c, -1, s});
    }
  }

  // The NCCL jobs, then each following wave; empty when every candidate is simulated or pruned.
  std::vector<Job> next(const Runner& runner, PruneCounts& pruned) {
    if (!started_) {
      started_ = true;
      return last_;
    }
    learn(runner);
    std::vector<Job> jobs;
    for (Coll& pc : per_coll_) {
      const std::size_t c = pc.c;
      const std::size_t take = options_.prune ? batch_ : pc.order.size();
      for (std::size_t n = 0; n < take && pc.next < pc.order.size(); ++pc.next) {
        const auto i = static_cast<std::size_t>(pc.order[pc.next]);
        if (options_.prune && cannot_win(pc, floors_.at(c, i, s_))) {
          for (; pc.next < pc.order.size(); ++pc.next) count_pruned(pc, static_cast<std::size_t>(pc.order[pc.next]), pruned);
          break;
        }
        jobs.push_back({c, static_cast<int>(i), s_});
        ++n;
      }
    }
    batch_ *= 2;
    last_ = jobs;
    if (options_.prune) {
      settled_ = 0;
      for (const Coll& pc : per_coll_) settled_ += pc.pruned + sure_to_prune(pc);
    }
    return jobs;
  }

  // Candidates pruned so far or sure to be, as the last next() left them; never falls, and once next()
  // is empty it is the size's pruned count. Progress counts them done now instead of at the size's end.
  std::size_t settled() const { return settled_; }

 private:
  struct Coll {
    std::size_t c;  // the collective
    std::vector<int> order;  // candidates by ascending floor
    std::size_t next = 0;
    std::size_t pruned = 0;
    std::optional<SimTime> best;
    SimTime nccl;
  };

  void learn(const Runner& runner) {
    for (const Job& j : last_) {
      Coll& pc = *std::find_if(per_coll_.begin(), per_coll_.end(), [&](const Coll& x) { return x.c == j.coll; });
      const Sample* smp = runner.sample(j);
      if (j.candidate < 0) pc.nccl = *smp->time;
      else if (smp->time && (!pc.best || *smp->time < *pc.best)) pc.best = smp->time;
    }
  }

  // As choose() decides: a candidate wins only as the fastest and where it beats NCCL.
  static bool above_best(const Coll& pc, SimTime floor) { return pc.best && floor > *pc.best; }
  bool below_gain(const Coll& pc, SimTime floor) const { return !beats_nccl(floor, pc.nccl, options_.min_gain); }
  bool cannot_win(const Coll& pc, SimTime floor) const { return above_best(pc, floor) || below_gain(pc, floor); }

  // The candidates from the first one not yet handed out that cannot win on: next() prunes them all
  // (the best time only falls, NCCL's is known, the floors are fixed).
  std::size_t sure_to_prune(const Coll& pc) const {
    for (std::size_t k = pc.next; k < pc.order.size(); ++k)
      if (cannot_win(pc, floors_.at(pc.c, static_cast<std::size_t>(pc.order[k]), s_))) return pc.order.size() - k;
    return 0;
  }

  void count_pruned(Coll& pc, std::size_t i, PruneCounts& pruned) const {
    ++pc.pruned;
    ++(above_best(pc, floors_.at(pc.c, i, s_)) ? pruned.above_best : pruned.below_nccl_gain);
    if (!cannot_win(pc, floors_.previous[pc.c][i])) ++pruned.by_time_floor_only;
  }

  const Floors& floors_;
  const TuneOptions& options_;
  std::size_t s_;
  std::vector<Coll> per_coll_;
  std::vector<Job> last_;  // the wave whose results the next one learns from
  std::size_t batch_ = kFirstWave;
  std::size_t settled_ = 0;
  bool started_;
};

}  // namespace ccforge::search
