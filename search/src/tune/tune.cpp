// The tune pipeline: candidates per collective -> simulations size by size, in waves per size (NCCL,
// then candidates by ascending floor while they can still win; size_runs.hpp) run in parallel with oneTBB ->
// winners, bands -> outputs. Each simulation writes only its own slot and every pruning
// decision depends only on finished results and floors, so the outcome does not depend on the thread
// count.
#include <stdexcept>

#include <fmt/core.h>
#include <tbb/task_arena.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/sim/transports.hpp"
#include "ccforge/topology/topology.hpp"
#include "tune/candidates.hpp"
#include "tune/checkpoint.hpp"
#include "tune/exports.hpp"
#include "tune/output_dir.hpp"
#include "tune/outputs.hpp"
#include "tune/phase_clock.hpp"
#include "tune/phase_progress.hpp"
#include "tune/runner.hpp"
#include "tune/size_runs.hpp"
#include "tune/waves.hpp"
#include "tune/work_division.hpp"

namespace ccforge::search {

namespace {

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

// Everything after the candidates are known; `clock` started when the tune began.
TuneResult run_tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params,
                    const DeployTarget& target, std::vector<CandidateSet> candidates, const BuildCounts& built,
                    CheckpointJournal& journal, PhaseClock& clock) {
  if (candidates.size() != options.collectives.size())
    throw std::invalid_argument("tune: one candidate set per collective");
  TuneResult result;
  result.topology = topo.name();
  if (topo.num_nodes() > 1) {
    result.transport = fmt::format("{} ({})", topo::to_string(topo.transport().kind),
                                   sim::net::transport_constants(topo.transport().kind).plugin);
  }
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
  runner.check_resumed();
  Floors floors;
  for (const auto& ct : result.collectives) {
    floors.previous.emplace_back(ct.candidates.accepted.size(), SimTime{0});
    floors.model.emplace_back(ct.candidates.accepted.size());
  }
  if (options.prune) compute_model_floors(floors, runner, options, result, journal);
  clock.mark("floors");
  runner.begin_simulations();
  const SimulationCounts counts = run_sizes(result, floors, options, runner);
  result.simulations = counts.simulations;
  result.pruned = counts.pruned.above_best + counts.pruned.below_nccl_gain;
  result.pruned_above_best = counts.pruned.above_best;
  result.pruned_by_time_floor_only = counts.pruned.by_time_floor_only;
  for (std::size_t c = 0; c < result.collectives.size(); ++c) {
    reject_refused(result.collectives[c], c, runner, options.sizes);
    assemble(topo, result.collectives[c], c, runner, options);
  }
  clock.mark("simulations");
  for (const auto& [wall_s, job] : runner.slowest(kSlowestSimulationsReported)) {
    const auto i = static_cast<std::size_t>(job.candidate);
    const bool floored = job.candidate >= 0 && !floors.model[job.coll][i].empty();
    result.slowest.push_back({runner.key(job), wall_s, floored ? floors.model[job.coll][i][job.size] : SimTime{0},
                              runner.sample(job)->time.value_or(SimTime{0})});
  }
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
