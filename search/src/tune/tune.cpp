// The tune pipeline: candidates per collective -> simulations size by size, in waves per size (NCCL,
// then candidates by ascending floor while they can still win) run in parallel with oneTBB ->
// winners, bands -> outputs. Each simulation writes only its own slot and every pruning
// decision depends only on finished results and floors, so the outcome does not depend on the thread
// count.
#include <algorithm>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include <fmt/core.h>
#include <tbb/task_arena.h>
#include <tbb/parallel_for.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "tune/candidates.hpp"
#include "tune/checkpoint.hpp"
#include "tune/exports.hpp"
#include "tune/output_dir.hpp"
#include "tune/outputs.hpp"
#include "tune/phase_clock.hpp"
#include "tune/phase_progress.hpp"
#include "tune/work_division.hpp"

namespace ccforge::search {

namespace {

// Candidates per collective in the first wave after NCCL (the lowest floors); later waves double it.
// Small because floors order candidates well: the first finished time usually prunes the rest.
constexpr std::size_t kFirstWave = 1;

struct Job {
  std::size_t coll;
  int candidate;  // -1: NCCL baseline
  std::size_t size;
};

class Runner {
 public:
  Runner(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params, TuneResult& result,
         CheckpointJournal& journal)
      : topo_(topo), options_(options), params_(params), dtype_(options.dtype), division_(options.share), result_(result),
        journal_(journal), progress_(options, kPhaseSimulations, tasks(result, options), false) {}

  void begin_simulations() { progress_.start(); }

  const sim::Model& model() const { return model_; }
  const sim::SimParams& params() const { return params_; }

  // sim::time_floors of a candidate at every size: what its simulations cannot undercut.
  std::vector<SimTime> time_floors(std::size_t coll, std::size_t candidate) const {
    std::vector<sim::CallSpec> calls;
    for (ByteCount bytes : options_.sizes) calls.push_back({bytes, dtype_});
    return sim::time_floors(topo_, result_.collectives[coll].candidates.accepted[candidate].algorithm, calls, params_);
  }

  // Runs this process's share of `jobs` in parallel and joins the others'; results land in the journal
  // (and so in finished()).
  void run(const std::vector<Job>& jobs) {
    std::vector<Job> todo, mine;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (!division_.mine(dealt_ + k)) continue;
      mine.push_back(jobs[k]);
      if (journal_.finished().count(key(jobs[k]))) ++result_.resumed_tasks;
      else todo.push_back(jobs[k]);
    }
    dealt_ += jobs.size();  // the next wave's deal starts where this one ended: small waves spread too
    simulated_ += todo.size();
    tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t i) {
      const Sample sample = simulate(todo[i]);
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        journal_.record(key(todo[i]), sample);
      }
      progress_.advance();
    });
    progress_.advance(mine.size() - todo.size());
    if (division_.alone()) return;
    std::string lines;
    for (const Job& j : mine) lines += CheckpointJournal::line(key(j), journal_.finished().at(key(j)));
    division_.join(lines, journal_);
    progress_.advance(jobs.size() - mine.size());
  }

  std::size_t simulated() const { return simulated_; }

  void skipped(std::size_t count) { progress_.advance(count); }

  std::string key(const Job& j) const {
    const CollectiveTune& ct = result_.collectives[j.coll];
    const std::string name = j.candidate < 0 ? "NCCL" : ct.candidates.accepted[static_cast<std::size_t>(j.candidate)].name;
    return fmt::format("{}/{}/{}", ir::to_string(ct.collective), name, options_.sizes[j.size]);
  }
  const Sample* sample(const Job& j) const {
    auto it = journal_.finished().find(key(j));
    return it == journal_.finished().end() ? nullptr : &it->second;
  }

 private:
  Sample simulate(const Job& j) const {
    const CollectiveTune& ct = result_.collectives[j.coll];
    const sim::CallSpec call{options_.sizes[j.size], dtype_};
    if (j.candidate < 0) {
      const sim::SimResult r = sim::simulate_nccl(topo_, ct.collective, call, {}, params_);
      return {r.time, {}};
    }
    const ir::Algorithm& algo = ct.candidates.accepted[static_cast<std::size_t>(j.candidate)].algorithm;
    try {
      const std::optional<sim::SimResult> r = sim::simulate_if_fits(topo_, algo, call, params_);
      return {r ? std::optional{r->time} : std::nullopt, {}};  // nullopt: outside the candidate's sizes
    } catch (const DiagError& e) {
      return {std::nullopt, e.diag().problem};  // a fault of the candidate: reject_refused reports it
    }
  }

  static std::size_t tasks(const TuneResult& result, const TuneOptions& options) {
    std::size_t total = 0;
    for (const auto& ct : result.collectives) total += (ct.candidates.accepted.size() + 1) * options.sizes.size();
    return total;
  }

  const topo::Topology& topo_;
  const TuneOptions& options_;
  const sim::SimParams& params_;
  const sim::Model model_ = sim::build_model(topo_, params_);
  const DataType dtype_;
  const WorkDivision division_;
  TuneResult& result_;
  CheckpointJournal& journal_;
  std::mutex mutex_;  // serialises the journal
  PhaseProgress progress_;
  std::size_t simulated_ = 0;  // by this process
  std::size_t dealt_ = 0;      // jobs dealt to the processes so far
};

// Per collective and candidate, times its simulation at the current size `s` cannot undercut: its own
// simulated time at the last smaller size (a larger call never runs faster; 0 when none), and
// sim::time_floors at this size (the sim's own capacity and latency bound; empty without pruning).
struct Floors {
  std::vector<std::vector<SimTime>> previous;
  std::vector<std::vector<std::vector<SimTime>>> model;  // per collective, candidate, size
  std::size_t s = 0;
  SimTime at(std::size_t c, std::size_t i) const {
    return model[c][i].empty() ? previous[c][i] : std::max(previous[c][i], model[c][i][s]);
  }
};

std::string floor_key(const TuneResult& r, std::size_t c, std::size_t i) {
  return fmt::format("floors/{}/{}", ir::to_string(r.collectives[c].collective), r.collectives[c].candidates.accepted[i].name);
}

// Each candidate's sim::time_floors, taken from the journal where a killed run left them (counted in
// result.floors_resumed) and recorded there otherwise; this process computes its share of the
// candidates and receives the others'.
void compute_model_floors(Floors& floors, const Runner& runner, const TuneOptions& options, TuneResult& result,
                          CheckpointJournal& journal) {
  const WorkDivision division(options.share);
  std::vector<std::pair<std::size_t, std::size_t>> todo, mine, theirs;
  for (std::size_t c = 0, item = 0; c < floors.model.size(); ++c)
    for (std::size_t i = 0; i < floors.model[c].size(); ++i, ++item) {
      if (!division.mine(item)) {
        theirs.emplace_back(c, i);
        continue;
      }
      mine.emplace_back(c, i);
      const auto known = journal.floors().find(floor_key(result, c, i));
      if (known == journal.floors().end()) {
        todo.emplace_back(c, i);
      } else {
        floors.model[c][i] = known->second;
        ++result.floors_resumed;
      }
    }
  PhaseProgress progress(options, kPhaseFloors, todo.size());
  std::mutex journal_mutex;
  tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t k) {
    const auto [c, i] = todo[k];
    try {
      floors.model[c][i] = runner.time_floors(c, i);
    } catch (const DiagError&) {
      // No model floor (recorded empty): its simulations fail the same way, and reject_refused reports that.
    }
    {
      const std::lock_guard<std::mutex> lock(journal_mutex);
      journal.record(floor_key(result, c, i), floors.model[c][i]);
    }
    progress.advance();
  });
  if (division.alone()) return;
  std::string lines;
  for (const auto& [c, i] : mine) lines += CheckpointJournal::line(floor_key(result, c, i), floors.model[c][i]);
  division.join(lines, journal);
  for (const auto& [c, i] : theirs) floors.model[c][i] = journal.floors().at(floor_key(result, c, i));
}

// Why candidates were skipped at one size.
struct PruneCounts {
  std::size_t above_best = 0, below_nccl_gain = 0, by_time_floor_only = 0;
};

// One size's simulations in waves: NCCL for every collective first, then per collective the next
// candidates in floor order that can still win (floor not above the best finished time, and able to
// beat NCCL by min_gain), each wave twice as many as the last. Floors ascend along the order, so the
// first candidate that cannot win ends its collective's list. Decisions read only finished results.
class SizeWaves {
 public:
  SizeWaves(const TuneResult& r, const Floors& floors, const TuneOptions& options, std::size_t s)
      : floors_(floors), options_(options), s_(s), per_coll_(r.collectives.size()) {
    for (std::size_t c = 0; c < per_coll_.size(); ++c) {
      std::vector<int>& order = per_coll_[c].order;
      order.resize(r.collectives[c].candidates.accepted.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return floors.at(c, static_cast<std::size_t>(a)) < floors.at(c, static_cast<std::size_t>(b));
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
    for (std::size_t c = 0; c < per_coll_.size(); ++c) {
      Coll& pc = per_coll_[c];
      const std::size_t take = options_.prune ? batch_ : pc.order.size();
      for (std::size_t n = 0; n < take && pc.next < pc.order.size(); ++pc.next) {
        const auto i = static_cast<std::size_t>(pc.order[pc.next]);
        if (options_.prune && cannot_win(pc, floors_.at(c, i))) {
          for (; pc.next < pc.order.size(); ++pc.next) count_pruned(c, static_cast<std::size_t>(pc.order[pc.next]), pruned);
          break;
        }
        jobs.push_back({c, static_cast<int>(i), s_});
        ++n;
      }
    }
    batch_ *= 2;
    last_ = jobs;
    return jobs;
  }

 private:
  struct Coll {
    std::vector<int> order;  // candidates by ascending floor
    std::size_t next = 0;
    std::optional<SimTime> best;
    SimTime nccl;
  };

  void learn(const Runner& runner) {
    for (const Job& j : last_) {
      Coll& pc = per_coll_[j.coll];
      const Sample* smp = runner.sample(j);
      if (j.candidate < 0) pc.nccl = *smp->time;
      else if (smp->time && (!pc.best || *smp->time < *pc.best)) pc.best = smp->time;
    }
  }

  // As choose() decides: a candidate wins only as the fastest and where it beats NCCL.
  static bool above_best(const Coll& pc, SimTime floor) { return pc.best && floor > *pc.best; }
  bool below_gain(const Coll& pc, SimTime floor) const { return !beats_nccl(floor, pc.nccl, options_.min_gain); }
  bool cannot_win(const Coll& pc, SimTime floor) const { return above_best(pc, floor) || below_gain(pc, floor); }

  void count_pruned(std::size_t c, std::size_t i, PruneCounts& pruned) const {
    const Coll& pc = per_coll_[c];
    ++(above_best(pc, floors_.at(c, i)) ? pruned.above_best : pruned.below_nccl_gain);
    if (!cannot_win(pc, floors_.previous[c][i])) ++pruned.by_time_floor_only;
  }

  const Floors& floors_;
  const TuneOptions& options_;
  std::size_t s_;
  std::vector<Coll> per_coll_;
  std::vector<Job> last_;  // the wave whose results the next one learns from
  std::size_t batch_ = kFirstWave;
  bool started_ = false;
};

void assemble(const topo::Topology& topo, CollectiveTune& ct, std::size_t coll, const Runner& runner, const TuneOptions& options) {
  for (std::size_t s = 0; s < options.sizes.size(); ++s) {
    SizeResult r;
    r.bytes = options.sizes[s];
    const Sample* nccl = runner.sample({coll, -1, s});
    r.nccl = *nccl->time;
    r.nccl_choice = sim::nccl_choose(topo, ct.collective, r.bytes, {}, runner.params());
    r.lower_bound = lower_bound(topo, ct.collective, r.bytes, &runner.model()).total();
    for (std::size_t i = 0; i < ct.candidates.accepted.size(); ++i) {
      const Sample* smp = runner.sample({coll, static_cast<int>(i), s});
      r.times.push_back(smp ? smp->time : std::nullopt);
    }
    ct.sizes.push_back(std::move(r));
  }
  const auto error_of = [&](int candidate, ByteCount bytes) {
    const Candidate& c = ct.candidates.accepted[static_cast<std::size_t>(candidate)];
    return expected_error(topo.name(), ct.collective, c.generator, c.request.protocol, bytes);
  };
  ct.choices = choose(ct.sizes, options.min_gain, error_of);
  ct.bands = merge_bands(ct.choices);
}

// Moves each candidate the simulator refused at some size (for a reason other than the size not
// splitting into its chunks) from accepted to rejected, with the first such size and the simulator's
// message. Before assemble: candidate indices in the results are those of the remaining ones.
void reject_refused(CollectiveTune& ct, std::size_t coll, const Runner& runner, const std::vector<ByteCount>& sizes) {
  std::vector<std::string> why(ct.candidates.accepted.size());
  for (std::size_t i = 0; i < why.size(); ++i)
    for (std::size_t s = 0; s < sizes.size() && why[i].empty(); ++s)
      if (const Sample* smp = runner.sample({coll, static_cast<int>(i), s}); smp && !smp->error.empty())
        why[i] = fmt::format("simulator at {} B: {}", sizes[s], smp->error);
  std::vector<Candidate> kept;
  for (std::size_t i = 0; i < why.size(); ++i) {
    if (why[i].empty()) kept.push_back(std::move(ct.candidates.accepted[i]));
    else ct.candidates.rejected.push_back({ct.candidates.accepted[i].name, std::move(why[i])});
  }
  ct.candidates.accepted = std::move(kept);
}

void raise_floors(Floors& floors, const TuneResult& r, const Runner& runner, std::size_t s) {
  for (std::size_t c = 0; c < r.collectives.size(); ++c)
    for (std::size_t i = 0; i < floors.previous[c].size(); ++i)
      if (const Sample* smp = runner.sample({c, static_cast<int>(i), s}); smp && smp->time)
        floors.previous[c][i] = *smp->time;
}

// Everything after the candidates are known; `clock` started when the tune began.
TuneResult run_tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params,
                    const DeployTarget& target, std::vector<CandidateSet> candidates, const BuildCounts& built,
                    CheckpointJournal& journal, PhaseClock& clock) {
  if (candidates.size() != options.collectives.size())
    throw std::invalid_argument("tune: one candidate set per collective");
  TuneResult result;
  result.topology = topo.name();
  result.ranks = topo.num_gpus();
  result.target = target;
  result.collectives.resize(options.collectives.size());
  for (std::size_t c = 0; c < options.collectives.size(); ++c) {
    result.collectives[c].collective = options.collectives[c];
    result.collectives[c].candidates = std::move(candidates[c]);
  }
  result.points_proven = built.proven;
  result.points_resumed = built.resumed;
  result.candidates_s = clock.mark("candidates");

  Runner runner(topo, options, params, result, journal);
  Floors floors;
  for (const auto& ct : result.collectives) {
    floors.previous.emplace_back(ct.candidates.accepted.size(), SimTime{0});
    floors.model.emplace_back(ct.candidates.accepted.size());
  }
  if (options.prune) compute_model_floors(floors, runner, options, result, journal);
  clock.mark("floors");
  runner.begin_simulations();
  for (std::size_t s = 0; s < options.sizes.size(); ++s) {
    floors.s = s;
    SizeWaves waves(result, floors, options, s);
    PruneCounts pruned;
    for (std::vector<Job> wave = waves.next(runner, pruned); !wave.empty(); wave = waves.next(runner, pruned)) {
      runner.run(wave);
      result.simulations += wave.size();
    }
    runner.skipped(pruned.above_best + pruned.below_nccl_gain);
    result.pruned += pruned.above_best + pruned.below_nccl_gain;
    result.pruned_above_best += pruned.above_best;
    result.pruned_by_time_floor_only += pruned.by_time_floor_only;
    raise_floors(floors, result, runner, s);
  }
  for (std::size_t c = 0; c < result.collectives.size(); ++c) {
    reject_refused(result.collectives[c], c, runner, options.sizes);
    assemble(topo, result.collectives[c], c, runner, options);
  }
  clock.mark("simulations");
  const WorkDivision division(options.share);
  join_process_usage(division, runner.simulated(), result);
  if (!division.lead()) return result;  // the other processes write nothing but their checkpoints
  result.nodes = topo.num_nodes();
  result.ranks_per_node = topo.gpus_per_node();
  result.nccl_space_searched = options.nccl_space.value_or(topo.num_gpus() <= kNcclSpaceAutoRanks);
  if (result.nccl_space_searched) {
    PhaseProgress progress(options, kPhaseNcclSpace, result.collectives.size());
    for (CollectiveTune& ct : result.collectives) {
      ct.nccl_space = tune_nccl_space(topo, ct.collective, options.sizes, options.dtype, params, options.min_gain);
      progress.advance();
    }
  }
  clock.mark("nccl_space");
  plan_exports(topo, result, options, params, options.dtype);
  result.exports_s = clock.mark("exports");
  result.phases = clock.phases();
  for (const PhaseTime& p : result.phases) result.elapsed_s += p.wall_s;
  result.processes.front().cpu_s = process_cpu_s();
  result.processes.front().peak_rss_mib = peak_rss_mib();
  write_outputs(result, options);
  return result;
}

// Runs `work` on options.jobs threads (all cores when 0), in an arena of its own: no process-wide limit.
template <typename Work>
TuneResult in_arena(const TuneOptions& options, Work&& work) {
  tbb::task_arena arena(options.jobs > 0 ? options.jobs : tbb::task_arena::automatic);
  return arena.execute(std::forward<Work>(work));
}

}  // namespace

TuneResult tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  PhaseClock clock;
  check_output_dir(options.out_dir);  // before any work
  const DeployTarget target = deploy_target(topo, options.runtime);
  CheckpointJournal journal = open_tune_journal(topo, options, params);
  return in_arena(options, [&] {
    if (options.progress) options.progress({kPhaseCandidates, 0, 0});
    BuildProgress progress;
    if (options.progress)
      progress = [&](std::size_t done, std::size_t total) { options.progress({kPhaseCandidates, done, total}); };
    BuildCounts built;
    std::vector<CandidateSet> candidates =
        enumerate_candidates(topo, options.collectives, target, progress, &journal, built, options.share);
    return run_tune(topo, options, params, target, std::move(candidates), built, journal, clock);
  });
}

TuneResult tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params,
                std::vector<CandidateSet> candidates) {
  PhaseClock clock;
  check_output_dir(options.out_dir);
  const DeployTarget target = deploy_target(topo, options.runtime);
  CheckpointJournal journal = open_tune_journal(topo, options, params);
  return in_arena(options, [&] { return run_tune(topo, options, params, target, std::move(candidates), {}, journal, clock); });
}

}  // namespace ccforge::search
