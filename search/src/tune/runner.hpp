// A tune's simulations: (collective, candidate or NCCL, size) jobs run in parallel with oneTBB, this
// process's share of each wave dealt by a WorkDivision, every result recorded in the checkpoint journal
// (and so readable by every process after the join).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "tune/checkpoint.hpp"
#include "tune/phase_progress.hpp"
#include "tune/work_division.hpp"

namespace ccforge::search {

struct Job {
  std::size_t coll;
  int candidate;  // -1: NCCL baseline
  std::size_t size;
};

class Runner {
 public:
  Runner(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params, TuneResult& result,
         CheckpointJournal& journal);

  void begin_simulations() { progress_.start(); }

  // Refuses (journal.forged) a resumed time of this tune's jobs below the simulator's lower bound for
  // its collective and size (search::lower_bound with the model: nothing the simulator runs is faster).
  void check_resumed() const;

  const sim::Model& model() const { return model_; }
  const sim::SimParams& params() const { return params_; }

  // sim::time_floors of a candidate at every size: what its simulations cannot undercut.
  std::vector<SimTime> time_floors(std::size_t coll, std::size_t candidate) const;

  // Runs this process's share of `jobs` in parallel and joins the others'; results land in the journal
  // (and so in sample()).
  void run(const std::vector<Job>& jobs);
  // Runs one job in this thread, for a process alone (nothing to join); safe beside other run_one and
  // sample calls.
  void run_one(const Job& job);

  std::size_t simulated() const { return simulated_; }
  // This process's `n` longest simulations with their wall seconds, longest first.
  std::vector<std::pair<double, Job>> slowest(std::size_t n) const;

  // Pruned jobs: done for progress, at no cost.
  void skipped(std::size_t count) { progress_.skip(count); }

  std::string key(const Job& j) const;
  // The job's finished result, or null. Safe beside run_one (a result, once there, never moves).
  const Sample* sample(const Job& j) const;

 private:
  Sample simulate(const Job& j) const;
  void record(const Job& j, const Sample& sample, double wall_s);

  const topo::Topology& topo_;
  const TuneOptions& options_;
  const sim::SimParams& params_;
  const sim::Model model_;
  const DataType dtype_;
  WorkDivision division_;
  TuneResult& result_;
  CheckpointJournal& journal_;
  mutable std::mutex mutex_;  // serialises the journal and the counts
  PhaseProgress progress_;
  std::size_t simulated_ = 0;  // by this process
  std::vector<std::pair<double, Job>> wall_s_;  // per simulation of this process
};

}  // namespace ccforge::search
