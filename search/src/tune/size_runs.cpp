#include "tune/size_runs.hpp"

#include <mutex>
#include <optional>

#include <tbb/task_group.h>

#include "tune/work_division.hpp"

namespace ccforge::search {

namespace {

void add(PruneCounts& to, const PruneCounts& more) {
  to.above_best += more.above_best;
  to.below_nccl_gain += more.below_nccl_gain;
  to.by_time_floor_only += more.by_time_floor_only;
}

// Counts the candidates newly sure to be pruned as done at once: a size's pruning is mostly known after
// its first waves, and an ETA that waited for its last one overstated by all of them.
void report_settled(Runner& runner, const SizeWaves& waves, std::size_t& reported) {
  runner.skipped(waves.settled() - reported);
  reported = waves.settled();
}

// Collective c's times at size s become the floors of its next size.
void raise_floors(Floors& floors, const Runner& runner, std::size_t c, std::size_t s) {
  for (std::size_t i = 0; i < floors.previous[c].size(); ++i)
    if (const Sample* smp = runner.sample({c, static_cast<int>(i), s}); smp && smp->time) floors.previous[c][i] = *smp->time;
}

SimulationCounts in_lockstep(const TuneResult& r, Floors& floors, const TuneOptions& options, Runner& runner) {
  SimulationCounts counts;
  std::vector<std::size_t> all(r.collectives.size());
  for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
  // NCCL's own calls depend on nothing a wave learns: one deal of all of them, collective by collective,
  // so that consecutive sizes (whose cost grows with size) go to different processes. Dealt a size at a
  // time, each size waited for its slowest call while the other processes idled.
  std::vector<Job> nccl;
  for (std::size_t c : all)
    for (std::size_t s = 0; s < options.sizes.size(); ++s) nccl.push_back({c, -1, s});
  runner.run(nccl);
  counts.simulations += nccl.size();
  for (std::size_t s = 0; s < options.sizes.size(); ++s) {
    SizeWaves waves(r, floors, options, s, all, true);
    PruneCounts pruned;
    std::size_t reported = 0;
    for (std::vector<Job> wave = waves.next(runner, pruned); !wave.empty(); wave = waves.next(runner, pruned)) {
      report_settled(runner, waves, reported);
      runner.run(wave);
      counts.simulations += wave.size();
    }
    report_settled(runner, waves, reported);
    add(counts.pruned, pruned);
    for (std::size_t c : all) raise_floors(floors, runner, c, s);
  }
  return counts;
}

// Each collective's sizes and waves as a chain of tasks: the job that ends a wave decides the next.
class Independent {
 public:
  Independent(const TuneResult& r, Floors& floors, const TuneOptions& options, Runner& runner)
      : r_(r), floors_(floors), options_(options), runner_(runner), tracks_(r.collectives.size()) {}

  SimulationCounts run() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (std::size_t c = 0; c < tracks_.size(); ++c) advance(c);
    }
    tasks_.wait();
    return counts_;
  }

 private:
  struct Track {
    std::size_t s = 0;
    std::optional<SizeWaves> waves;  // at size s
    PruneCounts pruned;              // at size s
    std::size_t reported = 0;        // of waves->settled(), to progress
    std::size_t pending = 0;         // jobs of the running wave
  };

  // Under mutex_: spawns collective c's next wave, moving on through its sizes while a size has none.
  void advance(std::size_t c) {
    Track& t = tracks_[c];
    while (t.s < options_.sizes.size()) {
      if (!t.waves) t.waves.emplace(r_, floors_, options_, t.s, std::vector<std::size_t>{c});
      const std::vector<Job> wave = t.waves->next(runner_, t.pruned);
      report_settled(runner_, *t.waves, t.reported);
      if (!wave.empty()) {
        t.pending = wave.size();
        counts_.simulations += wave.size();
        for (const Job& job : wave) tasks_.run([this, job] { finished(job); });
        return;
      }
      add(counts_.pruned, t.pruned);
      raise_floors(floors_, runner_, c, t.s);
      t.waves.reset();
      t.pruned = {};
      t.reported = 0;
      ++t.s;
    }
  }

  void finished(const Job& job) {
    runner_.run_one(job);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (--tracks_[job.coll].pending == 0) advance(job.coll);
  }

  const TuneResult& r_;
  Floors& floors_;
  const TuneOptions& options_;
  Runner& runner_;
  std::mutex mutex_;  // guards everything below and the floors
  std::vector<Track> tracks_;
  SimulationCounts counts_;
  tbb::task_group tasks_;
};

}  // namespace

SimulationCounts run_sizes(const TuneResult& r, Floors& floors, const TuneOptions& options, Runner& runner) {
  if (!WorkDivision(options.share).alone()) return in_lockstep(r, floors, options, runner);
  return Independent(r, floors, options, runner).run();
}

}  // namespace ccforge::search
