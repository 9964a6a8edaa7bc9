// A tune's findings as its output directory shows them: plain values that search fills in
// (search::tune_report) and this part writes (tune_outputs.hpp). Algorithms are referenced, not copied
// (an NDv5-x16 tune's winners are 300 MB of XML): a report is valid while the result it was made from is.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ccforge/common/data_type.hpp"
#include "ccforge/common/run_metadata.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/nccl_algo.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/output/selection_table.hpp"
#include "ccforge/tuner/tuner_conf.hpp"

namespace ccforge::output {

// A candidate that passed the checker: its generator's request and the proven algorithm.
struct TuneCandidate {
  std::string name, generator;
  ir::Protocol protocol = ir::Protocol::Simple;
  int channels = 1, instances = 1, chunks = 1;
  const ir::Algorithm* algorithm = nullptr;
};

struct TuneRejection {
  std::string name, reason;
};

// One tuned size (report.json's "sizes"): NCCL's time and choice, the bound, the chosen time and winner
// (-1: NCCL kept), every candidate's time (null where it cannot run the size or was pruned).
struct TuneSize {
  ByteCount bytes = 0;
  double nccl_us = 0.0;
  std::string nccl_algorithm;  // "nccl:ring:LL"
  double lower_bound_us = 0.0, best_us = 0.0;
  int winner = -1;
  std::vector<std::optional<double>> candidate_us;
};

// A winning band's expected error: the worst over its sizes, whether every size rests on a measured
// cell, and the cells' sources (search/expected_error.hpp).
struct BandError {
  double pct = 0.0;
  bool measured = true;
  std::vector<std::string> sources;
};

// Adjacent sizes with one winner (search::Band): what ships for them and why.
struct TuneBand {
  ByteCount min_bytes = 0, max_bytes = 0;  // nccl-tests sizes, both inclusive
  int winner = -1;                         // candidate index; -1: NCCL
  std::string file;                        // "algorithms/<name>.xml"; empty where nothing is exported
  std::string outofplace_file;             // the winner's out-of-place variant; empty where none ships
  const ir::Algorithm* outofplace = nullptr;
  std::vector<double> outofplace_us;       // the variant at the band's tuned sizes
  std::string note;
  std::optional<BandError> error;          // winners only
};

// One point of NCCL's own space at a size (algorithm x protocol x channels).
struct NcclPoint {
  ir::NcclAlgo algo = ir::NcclAlgo::Ring;
  ir::Protocol proto = ir::Protocol::Simple;
  int channels = 0;
  bool default_channels = false;  // NCCL's own count for the call
  double time_us = 0.0;           // simulated; where pruned, the floor that is no faster than NCCL's pick
  bool pruned = false;
  double model_us = 0.0;          // NCCL's own estimate
};

// NCCL's space at one size: points[0] is NCCL's pick. Empty points for alltoall, gather and scatter.
struct NcclSpaceSize {
  ByteCount bytes = 0;
  std::vector<NcclPoint> points;
  std::size_t fastest = 0;
  double gain = 0.0;            // pick time / fastest time - 1
  bool overridden = false;      // the pick loses by min_gain: the tuner overrides it
  std::string pick_name, fastest_name;  // "nccl:ring:LL128/16" ("/nccl": NCCL's own channel count)
};

// A size band nccl-tuner.conf overrides.
struct NcclSpaceBand {
  ByteCount min_bytes = 0, max_bytes = 0;
  ir::NcclAlgo algo = ir::NcclAlgo::Ring;
  ir::Protocol proto = ir::Protocol::Simple;
  int channels = 0;  // 0: NCCL's own count
  std::string name;  // as NcclSpaceSize names points
  double min_gain = 0.0, max_gain = 0.0;
};

struct CollectiveReport {
  ir::Collective collective = ir::Collective::AllReduce;
  std::vector<TuneCandidate> candidates;
  std::vector<TuneRejection> rejected;
  std::size_t rejected_by_runtime = 0;
  std::vector<TuneSize> sizes;
  std::vector<TuneBand> bands;
  std::vector<NcclSpaceSize> nccl_sizes;  // empty where NCCL's space was not searched
  std::vector<NcclSpaceBand> nccl_bands;
};

// One phase of a tune: wall and process CPU seconds, and the peak resident memory when it ended.
struct PhaseTime {
  std::string name;
  double wall_s = 0.0, cpu_s = 0.0;
  double peak_rss_mib = 0.0;  // the process's high-water mark so far (getrusage)
};

// What one process of a tune's job did and used, for report.json.
struct ProcessUsage {
  double cpu_s = 0.0, peak_rss_mib = 0.0;
  std::size_t simulations = 0;    // simulated by this process (not resumed, not received)
  std::size_t points_proven = 0;  // candidate grid points built and proven by this process
};

// One of a tune's longest simulations (this process's), for report.json: where the time went.
struct SlowSimulation {
  std::string task;  // collective/candidate/bytes, as the checkpoint names it
  double wall_s = 0.0;
  SimTime floor, time;  // the candidate's model floor (0 for NCCL or without pruning) and simulated time
};

// How the tune was asked for, as report.json and DEPLOY.md record it, and where its files go.
struct TuneRequest {
  std::filesystem::path out_dir;
  bool replace = false;           // drop an earlier tune's other collectives instead of carrying them over
  bool write_candidates = false;  // also candidates/<collective>_<index>_<name>.xml
  std::vector<ByteCount> sizes;
  double min_gain = 0.03;
  DataType dtype = DataType::Half;
  bool export_rooted = false;
  int jobs = 0;
  std::optional<RunMetadata> metadata;
};

struct TuneReport {
  TuneRequest request;
  std::string topology;
  std::string transport;  // "efa (aws-ofi-nccl)"; empty on one node
  ir::Runtime runtime = ir::Runtime::MscclNccl;
  int multiprocessors = 0;
  int ranks = 0;
  std::vector<CollectiveReport> collectives;
  std::vector<SelectionRow> rows;  // selection.csv's, in tune order
  bool nccl_space_searched = false;
  std::vector<tuner_conf::Rule> tuner_rules;  // nccl-tuner.conf's
  std::size_t simulations = 0, pruned = 0, pruned_above_best = 0, pruned_by_time_floor_only = 0;
  // report.json's "timing": the only member that differs between identical runs.
  double elapsed_s = 0.0, candidates_s = 0.0, exports_s = 0.0;
  std::vector<PhaseTime> phases;
  std::size_t resumed_tasks = 0, points_proven = 0, points_resumed = 0, floors_resumed = 0;
  std::vector<ProcessUsage> processes;
  std::vector<SlowSimulation> slowest;
  // The checkpoint journals in out_dir, kept in the new directory with `finished_line` appended.
  std::vector<std::string> journals;
  std::string finished_line;
};

}  // namespace ccforge::output
