// Public interface of the validate part: measure exported algorithms (and NCCL, where the backend has
// it) on real buffers with nccl-tests conventions, check every element, and write measured selection
// tables in `tune`'s format; plus an OSU-style point-to-point suite on the same harness.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ccforge/common/units.hpp"
#include "ccforge/executor/executor.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/output/selection_table.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::validate {

// An algorithm to measure and where it came from.
struct Candidate {
  ir::Algorithm algorithm;
  std::filesystem::path file;
};

// Every *.xml in `dir` (sorted by path, as the executor loads them). Malformed files throw DiagError.
std::vector<Candidate> load_algorithms(const std::filesystem::path& dir);
// The files a tune's output directory ships: algorithms/ and, where `tune --export-rooted` wrote it,
// algorithms-rooted/; none where every band kept NCCL. Not a tune directory: DiagError.
std::vector<Candidate> load_tuned_algorithms(const std::filesystem::path& tune_dir);
// The rank count all `candidates` are for; nullopt when there are none or they disagree.
std::optional<int> common_rank_count(const std::vector<Candidate>& candidates);

// Lower bounds carried over from a tune directory's selection.csv (its lower_bound_us column; in tables
// of earlier versions best_us * lower_bound_pct / 100): (collective, size) -> bound in us.
struct TunedBound {
  std::string collective;
  ByteCount size_bytes = 0;
  double bound_us = 0.0;
};
std::vector<TunedBound> read_tuned_bounds(const std::filesystem::path& selection_csv);

struct SweepOptions {
  int nranks = 8;
  std::vector<ir::Collective> collectives;  // empty: every collective the candidates implement
  // nccl-tests sizes (the larger buffer of one rank) as -b/-e/-f or -i sweep them
  std::vector<ByteCount> sizes = size_sweep(1024, ByteCount{1} << 20, 2);
  int root = 0;                             // -r: broadcast, reduce, gather, scatter
  int iterations = 20;                      // -n
  int warmup = 5;                           // -w
  bool check = true;                        // -c
  DataType dtype = DataType::Half;
  executor::RedOp op = executor::RedOp::Sum;
  bool all_sizes = false;                   // ignore the algorithms' [minBytes, maxBytes] bands
};

// One measured run: an algorithm (or "NCCL") at one size and placement.
struct Measurement {
  std::string collective;
  std::string algorithm;  // the algo's name, or "NCCL"
  std::string file;       // empty for NCCL
  std::string protocol;
  ByteCount size_bytes = 0;
  std::size_t count = 0;  // API count
  std::string type;
  std::string redop;
  bool inplace = false;
  double time_us = 0.0;
  double algbw_gbps = 0.0;
  double busbw_gbps = 0.0;
  std::int64_t wrong = 0;  // elements that differ from the collective's definition; -1 when not checked
  std::string error;       // why the run failed (deadlock, bad structure); empty when it ran
  int root = -1;           // of broadcast, reduce, gather and scatter; -1 for the others, as nccl-tests prints it
  bool ok() const { return error.empty() && wrong <= 0; }
};

struct SweepResult {
  std::string device;
  int nranks = 0;
  std::vector<Measurement> runs;
  std::vector<std::string> broken;  // files of algorithms with a wrong element or a failed run
};

// The host memory the sweep's largest call holds at once: every rank's send and receive buffers, twice
// (the check builds fresh inputs while the timed ones still exist). For the host device, whose ranks
// all live in this process; a GPU device keeps them on the GPUs.
std::uint64_t host_buffer_bytes(const std::vector<Candidate>& candidates, const SweepOptions& options);

// Runs the sweep; `on_run` sees each measurement as it finishes (for printing).
SweepResult run_sweep(executor::Backend& backend, const std::vector<Candidate>& candidates, const SweepOptions& options,
                      const std::function<void(const Measurement&)>& on_run = {});

// measured.csv, selection.csv and selection.md under `dir`, written atomically. `bounds` may be empty.
void write_sweep_outputs(const SweepResult& result, const std::vector<TunedBound>& bounds, const std::filesystem::path& dir);

// The measured selection table, in tune's format (output/selection_table.hpp): per (collective, size) the
// fastest correct algorithm and NCCL in its placement; no NCCL choice or expected error (measured).
std::vector<output::SelectionRow> selection_rows(const SweepResult& result, const std::vector<TunedBound>& bounds);

// OSU micro-benchmarks (what pytorch-hccl-tests ports). Point-to-point between ranks 0 and 1, once per
// protocol (LL, LL128, Simple): osu_latency (ping-pong, half the round trip), osu_bw (a window of
// back-to-back sends one way), osu_bibw (windows both ways at once). Collective benchmarks
// (osu_allreduce, ..., osu_barrier): per size the average, minimum and maximum latency of the timed
// iterations, each call timed alone (OSU's minimum and maximum are over ranks, which ccforge's backends
// do not time apart).
enum class OsuTest { Latency, Bandwidth, BiBandwidth, AllReduce, AllGather, AllToAll, Barrier, Broadcast, Gather, Reduce, Scatter };
std::optional<OsuTest> osu_test_from_string(const std::string& s);
const char* to_string(OsuTest t);  // "latency", "bw", "bibw", "allreduce", ..., "barrier"
// The tests a name stands for: one test, "collectives" (allreduce to scatter) or "benchmarks" (all);
// empty for an unknown name.
std::vector<OsuTest> osu_tests(const std::string& name);
bool is_point_to_point(OsuTest t);
// The collective an OSU collective benchmark calls; nullopt for point-to-point and barrier.
std::optional<ir::Collective> osu_collective(OsuTest t);

struct OsuOptions {
  OsuTest test = OsuTest::Latency;
  // OSU's message size: bytes a rank sends (per peer for alltoall, per rank for allgather, gather and
  // scatter, the buffer for the others), i.e. count x sizeof(T) of the call.
  std::vector<ByteCount> sizes = size_sweep(1, ByteCount{1} << 20, 2);
  int iterations = 20;
  int warmup = 5;
  int window = 64;  // osu_bw's default window size (-W)
  // Collective benchmarks only:
  int nranks = 2;
  int root = 0;
  DataType dtype = DataType::Float;  // sizes that are not whole elements are skipped
  executor::RedOp op = executor::RedOp::Sum;
  bool check = true;       // check every element of one extra call per algorithm and size
  bool all_sizes = false;  // ignore the algorithms' [minBytes, maxBytes] bands
};

struct OsuRow {
  std::string test;
  std::string protocol;
  ByteCount size_bytes = 0;
  double latency_us = 0.0;
  double bandwidth_mbps = 0.0;  // OSU's MB/s: 10^6 bytes per second
};

// Point-to-point tests.
std::vector<OsuRow> run_osu(executor::Backend& backend, const OsuOptions& options, const std::function<void(const OsuRow&)>& on_row = {});
std::string osu_csv(const std::vector<OsuRow>& rows);

struct OsuCollectiveRow {
  std::string test;
  std::string algorithm;  // file stem, "NCCL", or "dissemination" (barrier)
  ByteCount size_bytes = 0;
  double avg_us = 0.0, min_us = 0.0, max_us = 0.0;
  int iterations = 0;
  std::int64_t wrong = -1;  // elements differing from the collective's definition; -1 when not checked
  std::string error;        // why the run failed; empty when it ran
};

// Collective tests: per size the backend's own collective (NCCL on cuda) and every candidate for the
// collective and rank count whose band covers the size; barrier runs a dissemination barrier (log2
// rounds of one-byte messages, Hensgen, Finkel and Manber 1988) on every backend.
std::vector<OsuCollectiveRow> run_osu_collective(executor::Backend& backend, const std::vector<Candidate>& candidates,
                                                 const OsuOptions& options,
                                                 const std::function<void(const OsuCollectiveRow&)>& on_row = {});
std::string osu_collective_csv(const std::vector<OsuCollectiveRow>& rows);

// The dissemination barrier on `nranks` ranks as an IR program (collective `send`, one-byte chunks).
ir::Algorithm dissemination_barrier(int nranks);


// ---- Measured input for calibration and model error ----

// A plain nccl-tests log (all_reduce_perf etc.): one Measurement per size and placement, algorithm
// "NCCL". The collective comes from "# Collective test starting: <prog>"; `unnamed` is the collective of
// results before any such line (a log without one). Malformed lines are DiagErrors naming FILE:LINE.
std::vector<Measurement> read_nccl_tests_log(const std::filesystem::path& log, std::optional<ir::Collective> unnamed = {});

// How an nccl-tests/rccl-tests run was made, as its header prints it: "# nThread T nGpus G ...",
// the NCCL version ("NCCL version 2.26.2+cuda12.8" or "nccl-library=22602") and "# Using devices".
struct LogConditions {
  std::string file;
  int threads = 1;
  int gpus_per_thread = 1;
  std::optional<std::string> nccl_version;  // "2.26.2"; nullopt when not printed
  std::vector<std::string> devices;         // per rank, e.g. "NVIDIA H100 80GB HBM3"
  int devices_line = 0;                     // line of the first device, for messages
};
LogConditions read_nccl_tests_conditions(const std::filesystem::path& log);

// The log's devices are the topology's GPUs: as many, and of its GPU model (the model's first word,
// "H100", "A100", "MI300X", in each device name). Throws DiagError at the log's device line otherwise.
void check_log_matches_topology(const LogConditions& log, const topo::Topology& topology);

// ccforge's own measured.csv (write_sweep_outputs). Failed or wrong runs are skipped.
std::vector<Measurement> read_measured_csv(const std::filesystem::path& csv);

// measured.csv or an nccl-tests log, told apart by the first line; `unnamed` as read_nccl_tests_log's.
std::vector<Measurement> read_measurements(const std::filesystem::path& file, std::optional<ir::Collective> unnamed = {});

// The runs of `collectives` among `runs` (calibrate --coll); a DiagError naming --coll and the
// collectives the runs hold when none is left.
std::vector<Measurement> runs_of_collectives(std::vector<Measurement> runs, const std::vector<ir::Collective>& collectives);

// Simulated time of one measured run on `topology`: NCCL's own choice for "NCCL" rows, the algorithm
// file otherwise. `algorithms` maps a Measurement's file to its loaded algorithm.
double simulated_us(const topo::Topology& topology, const sim::SimParams& params, const Measurement& m,
                    const std::vector<Candidate>& algorithms);

// model_error.csv rows: collective,algorithm,size_bytes,measured_us,simulated_us,error_pct (correct runs only).
std::string model_error_csv(const SweepResult& result, const std::vector<Candidate>& algorithms, const topo::Topology& topology,
                            const sim::SimParams& params);

// ---- Calibration: least-squares fit of a few physical model parameters to measured times ----

// Where a fit parameter's default comes from: a value cited from NCCL's source or a datasheet, or one
// that was itself fitted to a measurement. When the data cannot separate two parameters, calibrate holds
// the one that reaches more points beyond the data at its default, the better-sourced (Cited) one
// among equals, and fits the other (identifiability.cpp).
enum class Provenance { Cited, Measured };

// One fitted parameter, searched inside physical bounds [lower, upper].
struct FitParam {
  std::string name;  // a profile name: link.* (topology) or sim.* (simulator, from sim::knob_param)
  double lower = 0.0;
  double upper = 0.0;
  Provenance provenance = Provenance::Cited;
};

// The parameters calibrate fits by default for the topology's GPU architecture (only those the model has).
std::vector<FitParam> default_fit_params(const topo::Topology& topology, const sim::SimParams& params);

enum class Holdout { Alternate, None };

struct CalibrationOptions {
  std::vector<FitParam> params;
  sim::SimParams base;  // the run's conditions (launch mode, NCCL settings and version) and fixed values
  Holdout holdout = Holdout::Alternate;
  int max_iterations = 30;
  std::string source;  // recorded as every fitted parameter's source
};

// One measured (collective, algorithm, size), in-place and out-of-place averaged.
struct CalibrationPoint {
  std::string collective;
  std::string algorithm;
  ByteCount size_bytes = 0;
  double measured_us = 0.0;
  double before_us = 0.0;  // simulated with the starting parameters
  double after_us = 0.0;   // simulated with the fitted parameters
  bool held_out = false;   // not used by the fit
};

// A parameter calibrate left at its default although the data moves it, and why.
struct HeldParam {
  std::string name;
  std::string reason;  // e.g. "not separable from sim.base.LL_us (condition index 412 > 30)"
};

struct CalibrationResult {
  std::vector<Param> fitted;  // name, value, unit, source
  // Asked-for parameters that no fitted point's simulated time depends on (e.g. NVLS terms of a
  // ring-forced log): not fitted, not written.
  std::vector<std::string> not_identified;
  // Asked-for parameters the data moves but cannot tell apart from others (collinear columns of the
  // fit's Jacobian): held at their defaults, not written.
  std::vector<HeldParam> held;
  std::vector<Param> initial;
  std::vector<CalibrationPoint> points;
  int iterations = 0;
};

// Mean absolute relative error in percent over the points with held_out == `held_out`; nullopt if none.
std::optional<double> mean_abs_error_pct(const std::vector<CalibrationPoint>& points, bool held_out, bool after);

// Fits options.params to `measured` (Levenberg-Marquardt on relative errors, finite-difference
// Jacobian by re-running the simulator). `topology_file` is reloaded for every "link." trial value.
CalibrationResult calibrate(const std::filesystem::path& topology_file, const topo::LoadOptions& load,
                            const std::vector<Measurement>& measured, const std::vector<Candidate>& algorithms,
                            const CalibrationOptions& options);

// The fitted parameters as a profile that `ccforge sim --profile` reads (atomically).
void write_calibrated_profile(const CalibrationResult& result, const std::filesystem::path& profile);

}  // namespace ccforge::validate
