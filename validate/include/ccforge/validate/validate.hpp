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

namespace ccforge::validate {

// nccl-tests' bus-bandwidth factor (nccl-tests doc/PERFORMANCE.md): busbw = algbw * factor.
double bus_bandwidth_factor(ir::Collective c, int nranks);

// An algorithm to measure and where it came from.
struct Candidate {
  ir::Algorithm algorithm;
  std::filesystem::path file;
};

// Every *.xml in `dir` (sorted by path, as the executor loads them). Malformed files throw DiagError.
std::vector<Candidate> load_algorithms(const std::filesystem::path& dir);

// Lower bounds carried over from a tune directory's selection.csv: (collective, size) -> bound in us,
// recovered as best_us * lower_bound_pct / 100.
struct TunedBound {
  std::string collective;
  ByteCount size_bytes = 0;
  double bound_us = 0.0;
};
std::vector<TunedBound> read_tuned_bounds(const std::filesystem::path& selection_csv);

struct SweepOptions {
  int nranks = 8;
  std::vector<ir::Collective> collectives;  // empty: every collective the candidates implement
  ByteCount min_bytes = 1024;               // -b, nccl-tests "size": the larger buffer of one rank
  ByteCount max_bytes = 1 << 20;            // -e
  int step_factor = 2;                      // -f
  int iterations = 20;                      // -n
  int warmup = 5;                           // -w
  bool check = true;                        // -c
  executor::DataType dtype = executor::DataType::Half;
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
  bool ok() const { return error.empty() && wrong <= 0; }
};

struct SweepResult {
  std::string device;
  int nranks = 0;
  std::vector<Measurement> runs;
  std::vector<std::string> broken;  // files of algorithms with a wrong element or a failed run
};

// Runs the sweep; `on_run` sees each measurement as it finishes (for printing).
SweepResult run_sweep(executor::Backend& backend, const std::vector<Candidate>& candidates, const SweepOptions& options,
                      const std::function<void(const Measurement&)>& on_run = {});

// measured.csv, selection.csv and selection.md under `dir`, written atomically. `bounds` may be empty.
void write_sweep_outputs(const SweepResult& result, const std::vector<TunedBound>& bounds, const std::filesystem::path& dir);

// The rows of selection.csv, header first, in tune's format:
// collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct.
std::vector<std::string> selection_csv_lines(const SweepResult& result, const std::vector<TunedBound>& bounds);

// OSU micro-benchmarks semantics between ranks 0 and 1 (osu_latency: ping-pong, half the round trip;
// osu_bw: a window of back-to-back sends one way; osu_bibw: windows both ways at once).
enum class OsuTest { Latency, Bandwidth, BiBandwidth };
std::optional<OsuTest> osu_test_from_string(const std::string& s);

struct OsuRow {
  std::string test;
  std::string protocol;
  ByteCount size_bytes = 0;
  double latency_us = 0.0;
  double bandwidth_gbps = 0.0;
};

struct OsuOptions {
  OsuTest test = OsuTest::Latency;
  ByteCount min_bytes = 8;
  ByteCount max_bytes = 1 << 20;
  int step_factor = 2;
  int iterations = 20;
  int warmup = 5;
  int window = 64;  // osu_bw's default window size
};

std::vector<OsuRow> run_osu(executor::Backend& backend, const OsuOptions& options, const std::function<void(const OsuRow&)>& on_row = {});
std::string osu_csv(const std::vector<OsuRow>& rows);

}  // namespace ccforge::validate
