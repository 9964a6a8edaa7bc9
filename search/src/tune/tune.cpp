// The tune pipeline: candidates per collective -> simulations size by size, in two waves per size
// (the most promising candidates first, then the rest that can still win) run in parallel with
// oneTBB -> winners, bands -> outputs. Each simulation writes only its own slot and every pruning
// decision depends only on finished results, so the outcome does not depend on the thread count.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>

#include <fmt/core.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "tune/checkpoint.hpp"
#include "tune/outputs.hpp"

namespace ccforge::search {

namespace {

// Wave 1 size: the candidates with the lowest floors; their best time prunes the others.
constexpr std::size_t kFirstWave = 4;

struct Job {
  std::size_t coll;
  int candidate;  // -1: NCCL baseline
  std::size_t size;
};

sim::DataType data_type(const std::string& name) {
  if (auto dt = sim::data_type_from_string(name)) return *dt;
  throw DiagError(Diag{{"--dtype", 0}, "unknown data type " + name, "use one of " + sim::data_type_names()});
}

// Everything a simulated time depends on, so that --resume never mixes results of different models
// (another profile changes parameter values, not the topology's name).
std::string fingerprint(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  std::string f = topo.name() + "|" + options.dtype + "|";
  for (ByteCount b : options.sizes) f += std::to_string(b) + ",";
  for (const ParamTable* table : {&topo.link_params(), &params.table})
    for (const Param& p : table->all()) f += "|" + p.name + "=" + fmt::format("{}", p.value);
  return f;
}

class Runner {
 public:
  Runner(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params, TuneResult& result,
         CheckpointJournal& journal)
      : topo_(topo), options_(options), params_(params), dtype_(data_type(options.dtype)), result_(result), journal_(journal) {
    for (const auto& ct : result.collectives) total_ += (ct.candidates.accepted.size() + 1) * options.sizes.size();
  }

  const sim::SimParams& params() const { return params_; }

  // Runs `jobs` in parallel; results land in the journal (and so in finished()).
  void run(const std::vector<Job>& jobs) {
    std::vector<Job> todo;
    for (const Job& j : jobs) {
      if (journal_.finished().count(key(j))) ++result_.resumed_tasks;
      else todo.push_back(j);
    }
    tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t i) {
      const Sample sample = simulate(todo[i]);
      const std::lock_guard<std::mutex> lock(mutex_);
      journal_.record(key(todo[i]), sample);
      report(1);
    });
    std::lock_guard<std::mutex> lock(mutex_);
    report(jobs.size() - todo.size());
  }

  void skipped(std::size_t count) {
    const std::lock_guard<std::mutex> lock(mutex_);
    report(count);
  }

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
      return {r.time, r.algorithm};
    }
    try {
      return {sim::simulate(topo_, ct.candidates.accepted[static_cast<std::size_t>(j.candidate)].algorithm, call, params_).time, {}};
    } catch (const DiagError&) {
      return {std::nullopt, {}};  // this size does not split into the candidate's chunks
    }
  }

  void report(std::size_t more) {
    done_ += more;
    if (options_.progress && more > 0) options_.progress(done_, total_);
  }

  const topo::Topology& topo_;
  const TuneOptions& options_;
  const sim::SimParams& params_;
  const sim::DataType dtype_;
  TuneResult& result_;
  CheckpointJournal& journal_;
  std::mutex mutex_;
  std::size_t done_ = 0, total_ = 0;
};

// Floors: the last simulated time of each candidate at a smaller size (0 when none).
struct Floors {
  std::vector<std::vector<SimTime>> per_coll;
};

// The jobs of size s in two waves; wave 2 keeps only candidates whose floor lets them still win.
std::vector<Job> wave_one(const TuneResult& r, const Floors& floors, std::size_t s) {
  std::vector<Job> jobs;
  for (std::size_t c = 0; c < r.collectives.size(); ++c) {
    jobs.push_back({c, -1, s});
    std::vector<int> order(r.collectives[c].candidates.accepted.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return floors.per_coll[c][a] < floors.per_coll[c][b]; });
    for (std::size_t i = 0; i < std::min(kFirstWave, order.size()); ++i) jobs.push_back({c, order[i], s});
  }
  return jobs;
}

std::vector<Job> wave_two(const TuneResult& r, const Floors& floors, const Runner& runner, const std::vector<Job>& first,
                          const TuneOptions& options, std::size_t s, std::size_t& pruned) {
  std::vector<Job> jobs;
  for (std::size_t c = 0; c < r.collectives.size(); ++c) {
    std::optional<SimTime> best;
    SimTime nccl{};
    std::vector<bool> in_first(r.collectives[c].candidates.accepted.size(), false);
    for (const Job& j : first) {
      if (j.coll != c) continue;
      const Sample* smp = runner.sample(j);
      if (j.candidate < 0) { nccl = *smp->time; continue; }
      in_first[static_cast<std::size_t>(j.candidate)] = true;
      if (smp->time && (!best || *smp->time < *best)) best = smp->time;
    }
    for (std::size_t i = 0; i < in_first.size(); ++i) {
      if (in_first[i]) continue;
      const double floor_ps = static_cast<double>(floors.per_coll[c][i].ps);
      const bool hopeless = options.prune && ((best && floors.per_coll[c][i] > *best) ||
                                              floor_ps * (1.0 + options.min_gain) > static_cast<double>(nccl.ps));
      if (hopeless) ++pruned;
      else jobs.push_back({c, static_cast<int>(i), s});
    }
  }
  return jobs;
}

void assemble(const topo::Topology& topo, CollectiveTune& ct, std::size_t coll, const Runner& runner, const TuneOptions& options) {
  for (std::size_t s = 0; s < options.sizes.size(); ++s) {
    SizeResult r;
    r.bytes = options.sizes[s];
    const Sample* nccl = runner.sample({coll, -1, s});
    r.nccl = *nccl->time;
    r.nccl_algorithm = nccl->label;
    r.lower_bound = lower_bound(topo, ct.collective, r.bytes, &runner.params().table).total();
    for (std::size_t i = 0; i < ct.candidates.accepted.size(); ++i) {
      const Sample* smp = runner.sample({coll, static_cast<int>(i), s});
      r.times.push_back(smp ? smp->time : std::nullopt);
    }
    ct.sizes.push_back(std::move(r));
  }
  ct.choices = choose(ct.sizes, options.min_gain);
  ct.bands = merge_bands(ct.choices);
  // Bands are disjoint, so any order selects correctly; the index keeps files in size order.
  for (std::size_t b = 0; b < ct.bands.size(); ++b) {
    Band& band = ct.bands[b];
    if (band.winner >= 0)
      band.file = fmt::format("algorithms/{}_{:02}_{}.xml", ir::to_string(ct.collective), b,
                              ct.candidates.accepted[static_cast<std::size_t>(band.winner)].name);
  }
}

void raise_floors(Floors& floors, const TuneResult& r, const Runner& runner, std::size_t s) {
  for (std::size_t c = 0; c < r.collectives.size(); ++c)
    for (std::size_t i = 0; i < floors.per_coll[c].size(); ++i)
      if (const Sample* smp = runner.sample({c, static_cast<int>(i), s}); smp && smp->time)
        floors.per_coll[c][i] = *smp->time;
}

}  // namespace

TuneResult tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  const auto start = std::chrono::steady_clock::now();
  data_type(options.dtype);  // reject a bad dtype before any work
  std::optional<tbb::global_control> limit;
  if (options.jobs > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(options.jobs));

  TuneResult result;
  result.topology = topo.name();
  result.collectives.resize(options.collectives.size());
  tbb::parallel_for(std::size_t{0}, options.collectives.size(), [&](std::size_t c) {
    result.collectives[c].collective = options.collectives[c];
    result.collectives[c].candidates = enumerate_candidates(topo, options.collectives[c]);
  });

  std::filesystem::create_directories(options.out_dir);
  CheckpointJournal journal(options.out_dir / "checkpoint.jsonl", fingerprint(topo, options, params), options.resume);
  Runner runner(topo, options, params, result, journal);
  Floors floors;
  for (const auto& ct : result.collectives) floors.per_coll.emplace_back(ct.candidates.accepted.size(), SimTime{0});
  for (std::size_t s = 0; s < options.sizes.size(); ++s) {
    const std::vector<Job> first = wave_one(result, floors, s);
    runner.run(first);
    std::size_t pruned = 0;
    const std::vector<Job> second = wave_two(result, floors, runner, first, options, s, pruned);
    runner.run(second);
    runner.skipped(pruned);
    result.pruned += pruned;
    result.simulations += first.size() + second.size();
    raise_floors(floors, result, runner, s);
  }
  for (std::size_t c = 0; c < result.collectives.size(); ++c) assemble(topo, result.collectives[c], c, runner, options);
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_outputs(result, options);
  return result;
}

}  // namespace ccforge::search
