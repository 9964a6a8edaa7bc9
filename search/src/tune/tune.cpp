// The tune pipeline: candidates per collective -> tasks (NCCL or one candidate, all sizes) simulated
// in parallel with oneTBB -> winners, bands -> outputs. Each task writes only its own slot, so the
// result does not depend on the thread count or the order tasks finish in.
#include <chrono>
#include <mutex>

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

struct Task {
  std::size_t coll;
  int candidate;  // -1: NCCL baseline
  std::string key;
};

sim::DataType data_type(const std::string& name) {
  if (auto dt = sim::data_type_from_string(name)) return *dt;
  throw DiagError(Diag{{"--dtype", 0}, "unknown data type " + name, "use one of " + sim::data_type_names()});
}

std::string fingerprint(const topo::Topology& topo, const TuneOptions& options) {
  std::string f = topo.name() + "|" + options.dtype + "|";
  for (ByteCount b : options.sizes) f += std::to_string(b) + ",";
  return f;
}

TaskTimes run_task(const topo::Topology& topo, const CollectiveTune& ct, int candidate, const TuneOptions& options,
                   const sim::DataType& dtype, const sim::SimParams& params) {
  TaskTimes t;
  for (ByteCount bytes : options.sizes) {
    const sim::CallSpec call{bytes, dtype};
    if (candidate < 0) {
      const sim::SimResult r = sim::simulate_nccl(topo, ct.collective, call, {}, params);
      t.times.push_back(r.time);
      t.labels.push_back(r.algorithm);
      continue;
    }
    try {
      t.times.push_back(sim::simulate(topo, ct.candidates.accepted[static_cast<std::size_t>(candidate)].algorithm, call, params).time);
    } catch (const DiagError&) {
      t.times.push_back(std::nullopt);  // this size does not split into the candidate's chunks
    }
  }
  return t;
}

std::vector<Task> make_tasks(const std::vector<CollectiveTune>& colls) {
  std::vector<Task> tasks;
  for (std::size_t c = 0; c < colls.size(); ++c) {
    const std::string prefix = std::string(ir::to_string(colls[c].collective)) + "/";
    tasks.push_back({c, -1, prefix + "NCCL"});
    for (std::size_t i = 0; i < colls[c].candidates.accepted.size(); ++i)
      tasks.push_back({c, static_cast<int>(i), prefix + colls[c].candidates.accepted[i].name});
  }
  return tasks;
}

void assemble(const topo::Topology& topo, CollectiveTune& ct, const std::map<std::string, TaskTimes>& done,
              const TuneOptions& options) {
  const std::string prefix = std::string(ir::to_string(ct.collective)) + "/";
  const TaskTimes& nccl = done.at(prefix + "NCCL");
  for (std::size_t s = 0; s < options.sizes.size(); ++s) {
    SizeResult r;
    r.bytes = options.sizes[s];
    r.nccl = *nccl.times[s];
    r.nccl_algorithm = nccl.labels[s];
    r.lower_bound = lower_bound(topo, ct.collective, r.bytes).total();
    for (const Candidate& c : ct.candidates.accepted) r.times.push_back(done.at(prefix + c.name).times[s]);
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

}  // namespace

TuneResult tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  const auto start = std::chrono::steady_clock::now();
  const sim::DataType dtype = data_type(options.dtype);
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
  CheckpointJournal journal(options.out_dir / "checkpoint.jsonl", fingerprint(topo, options), options.resume);
  const std::vector<Task> tasks = make_tasks(result.collectives);
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (!journal.finished().count(tasks[i].key)) todo.push_back(i);
  result.resumed_tasks = tasks.size() - todo.size();

  std::mutex mutex;
  std::size_t done = result.resumed_tasks;
  tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t i) {
    const Task& task = tasks[todo[i]];
    TaskTimes times = run_task(topo, result.collectives[task.coll], task.candidate, options, dtype, params);
    const std::lock_guard<std::mutex> lock(mutex);
    journal.record(task.key, times);
    if (options.progress) options.progress(++done, tasks.size());
  });

  for (CollectiveTune& ct : result.collectives) assemble(topo, ct, journal.finished(), options);
  result.simulations = tasks.size() * options.sizes.size();
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_outputs(result, options);
  return result;
}

}  // namespace ccforge::search
