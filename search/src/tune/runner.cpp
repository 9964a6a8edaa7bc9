#include "tune/runner.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/core.h>
#include <tbb/parallel_for.h>

namespace ccforge::search {

namespace {

std::size_t tasks(const TuneResult& result, const TuneOptions& options) {
  std::size_t total = 0;
  for (const auto& ct : result.collectives) total += (ct.candidates.accepted.size() + 1) * options.sizes.size();
  return total;
}

}  // namespace

Runner::Runner(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params, TuneResult& result,
               CheckpointJournal& journal)
    : topo_(topo), options_(options), params_(params), model_(sim::build_model(topo, params)), dtype_(options.dtype),
      division_(options.share), result_(result), journal_(journal),
      progress_(options, kPhaseSimulations, tasks(result, options), false) {}

std::vector<SimTime> Runner::time_floors(std::size_t coll, std::size_t candidate) const {
  std::vector<sim::CallSpec> calls;
  for (ByteCount bytes : options_.sizes) calls.push_back({bytes, dtype_});
  return sim::time_floors(topo_, result_.collectives[coll].candidates.accepted[candidate].algorithm, calls, params_);
}

void Runner::check_resumed() const {
  if (journal_.finished().empty()) return;  // a fresh tune
  for (std::size_t c = 0; c < result_.collectives.size(); ++c) {
    const CollectiveTune& ct = result_.collectives[c];
    for (std::size_t s = 0; s < options_.sizes.size(); ++s) {
      const SimTime bound = lower_bound(topo_, ct.collective, options_.sizes[s], &model_).total();
      for (int i = -1; i < static_cast<int>(ct.candidates.accepted.size()); ++i) {
        const Sample* smp = sample({c, i, s});
        if (smp && smp->time && *smp->time < bound)
          throw journal_.forged(key({c, i, s}), fmt::format("{:.6f} us is below the simulator's lower bound of {:.6f} us for {} B",
                                                            smp->time->us(), bound.us(), options_.sizes[s]));
      }
    }
  }
}

void Runner::run(const std::vector<Job>& jobs) {
  const WorkDivision::Deal deal = division_.deal(jobs.size());
  std::vector<Job> todo;
  for (std::size_t k : deal.mine) {
    if (journal_.finished().count(key(jobs[k]))) ++result_.resumed_tasks;
    else todo.push_back(jobs[k]);
  }
  tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t i) {
    const auto start = std::chrono::steady_clock::now();
    const Sample sample = simulate(todo[i]);
    record(todo[i], sample, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
  progress_.skip(deal.mine.size() - todo.size());  // resumed
  division_.join(deal.mine, [&](std::size_t k) { return CheckpointJournal::line(key(jobs[k]), *sample(jobs[k])); }, journal_);
  progress_.advance(deal.theirs.size());
}

void Runner::run_one(const Job& job) {
  if (sample(job) != nullptr) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++result_.resumed_tasks;
    }
    progress_.skip(1);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const Sample sample = simulate(job);
  record(job, sample, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void Runner::record(const Job& j, const Sample& sample, double wall_s) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    journal_.record(key(j), sample);
    wall_s_.emplace_back(wall_s, j);
    ++simulated_;
  }
  progress_.advance();
}

std::vector<std::pair<double, Job>> Runner::slowest(std::size_t n) const {
  std::vector<std::pair<double, Job>> out = wall_s_;
  const auto longer = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::sort(out.begin(), out.end(), longer);
  out.resize(std::min(n, out.size()));
  return out;
}

std::string Runner::key(const Job& j) const {
  const CollectiveTune& ct = result_.collectives[j.coll];
  const std::string name = j.candidate < 0 ? "NCCL" : ct.candidates.accepted[static_cast<std::size_t>(j.candidate)].name;
  return fmt::format("{}/{}/{}", ir::to_string(ct.collective), name, options_.sizes[j.size]);
}

const Sample* Runner::sample(const Job& j) const {
  const std::string k = key(j);
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = journal_.finished().find(k);
  return it == journal_.finished().end() ? nullptr : &it->second;
}

Sample Runner::simulate(const Job& j) const {
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

}  // namespace ccforge::search
