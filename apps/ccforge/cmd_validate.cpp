// `ccforge validate`: flags and printing only; the validate and executor libraries do the work.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <unistd.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/common/output_path.hpp"
#include "ccforge/common/data_type.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/executor/executor.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/validate/charts.hpp"
#include "ccforge/validate/validate.hpp"
#include "commands.hpp"
#include "run_conditions.hpp"
#include "reduction_flags.hpp"
#include "shared_flags.hpp"
#include "size_flags.hpp"
#include "topo_input.hpp"

namespace ccforge::cli {
namespace {

constexpr int kDefaultRanks = 8;

struct ValidateFlags {
  RunConditionFlags conditions;  // of the predictions in model_error.csv
  std::string device = "host";
  std::optional<int> nranks;  // default: the algorithms' rank count, else kDefaultRanks
  std::string collectives;
  std::string algos_dir, tuned_dir, out_dir = "ccforge-validate";
  SizeSweepFlags sizes;
  int iterations = 20, warmup = 5, check = 1, watchdog_ms = 5000, window = 64;
  std::string dtype = "half";
  ReductionFlags reduction;
  bool all_sizes = false;
  std::vector<std::string> suite;
  TopoInput topo;  // a file given: also write model_error.csv (simulated vs measured)
};

std::unique_ptr<executor::Backend> make_backend(const ValidateFlags& f) {
  const executor::ExecOptions options{std::chrono::milliseconds(f.watchdog_ms)};
  if (f.device == "host") return executor::make_host_backend(options);
  return executor::make_cuda_backend(options);
}

validate::SweepOptions sweep_options(const ValidateFlags& f, int nranks) {
  validate::SweepOptions o;
  o.nranks = nranks;
  if (!f.collectives.empty()) o.collectives = collectives_flag(f.collectives);
  o.sizes = sweep_sizes(f.sizes, f.device == "host" ? "1M" : "1G");
  check_root_rank(f.reduction, nranks);
  o.root = f.reduction.root;
  o.iterations = f.iterations;
  o.warmup = f.warmup;
  o.check = f.check != 0;
  o.dtype = parse_data_type_flag("-d", f.dtype);
  o.op = red_op_flag(f.reduction);
  o.all_sizes = f.all_sizes;
  return o;
}

// nccl-tests' table: one line per algorithm and size, out-of-place and in-place side by side. The sweep
// runs an algorithm's out-of-place call right before its in-place one, so a line is printed when the pair
// is complete (or when the next run shows one side was not runnable: its columns are N/A).
class NcclTestsTable {
 public:
  static void print_header() {
    fmt::print("#{:48} {:^35} {:^35}\n", "", "out-of-place", "in-place");
    fmt::print("#{:>11} {:>12} {:>9} {:>6} {:>6} {:>10} {:>8} {:>8} {:>6} {:>10} {:>8} {:>8} {:>6}  {}\n", "size", "count", "type",
               "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "algorithm");
    fmt::print("#{:>11} {:>12} {:>9} {:>6} {:>6} {:>10} {:>8} {:>8} {:>6} {:>10} {:>8} {:>8}\n", "(B)", "(elements)", "", "", "",
               "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)");
  }

  void add(const validate::Measurement& m) {
    if (pending_ && !m.inplace) flush();
    if (pending_ && same_call(*pending_, m)) return print(&*pending_, &m), pending_.reset();
    flush();
    if (m.inplace) return print(nullptr, &m);
    pending_ = m;
  }

  // The rest, then nccl-tests' footer.
  void finish() {
    flush();
    fmt::print("# Out of bounds values : {} {}\n", wrong_, wrong_ == 0 ? "OK" : "FAILED");
    fmt::print("# Avg bus bandwidth    : {:.3f}\n", columns_ ? busbw_sum_ / static_cast<double>(columns_) : 0.0);
  }

 private:
  static bool same_call(const validate::Measurement& a, const validate::Measurement& b) {
    return a.collective == b.collective && a.algorithm == b.algorithm && a.file == b.file && a.size_bytes == b.size_bytes;
  }

  void flush() {
    if (pending_) print(&*pending_, nullptr);
    pending_.reset();
  }

  std::string columns(const validate::Measurement* m) {
    if (!m) return fmt::format("{:>10} {:>8} {:>8} {:>6}", "N/A", "N/A", "N/A", "N/A");
    if (!m->error.empty()) return fmt::format("{:>10} {:>8} {:>8} {:>6}", "FAILED", "", "", "");
    if (m->wrong > 0) wrong_ += m->wrong;
    busbw_sum_ += m->busbw_gbps, ++columns_;
    return fmt::format("{:>10.2f} {:>8.2f} {:>8.2f} {:>6}", m->time_us, m->algbw_gbps, m->busbw_gbps,
                       m->wrong < 0 ? "N/A" : std::to_string(m->wrong));
  }

  void print(const validate::Measurement* out_of_place, const validate::Measurement* in_place) {
    const validate::Measurement& m = out_of_place ? *out_of_place : *in_place;
    const std::string left = columns(out_of_place), right = columns(in_place);
    fmt::print("{:>12} {:>12} {:>9} {:>6} {:>6} {} {}  {}{}\n", m.size_bytes, m.count, m.type, m.redop, m.root, left, right,
               m.algorithm, m.protocol.empty() ? "" : " (" + m.protocol + ")");
    for (const validate::Measurement* run : {out_of_place, in_place})
      if (run && !run->error.empty()) fmt::print("#   {} {}: {}\n", run->algorithm, run->inplace ? "in-place" : "out-of-place", run->error);
  }

  std::optional<validate::Measurement> pending_;
  std::int64_t wrong_ = 0;
  double busbw_sum_ = 0.0;
  std::size_t columns_ = 0;
};

// The memory the kernel can give this process now (/proc/meminfo MemAvailable), else the free pages.
std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    std::uint64_t kib = 0;
    if (key == "MemAvailable:" && meminfo >> kib) return kib * 1024;
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return static_cast<std::uint64_t>(::sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ULL << 30)); }

// The host device holds every rank's buffers in this process: a sweep they cannot fit is refused
// before the first run instead of ending in std::bad_alloc.
void check_host_memory(std::uint64_t needed, const std::vector<ByteCount>& sizes, int nranks) {
  const std::uint64_t available = available_memory_bytes();
  if (needed <= available) return;
  fail_at("-e", 0,
          fmt::format("the host device needs up to {} of rank buffers at {} ({} ranks) but {} of memory is available", gib(needed),
                      format_size(*std::max_element(sizes.begin(), sizes.end())), nranks, gib(available)),
          "lower -e or --nranks, or run on --device cuda");
}

// OSU sizes are what one rank sends; a rank receives at most one such message from every rank (gather,
// allgather, alltoall), and the check builds fresh buffers while the timed ones exist: a bound, not a count.
// Point-to-point tests run on ranks 0 and 1 only.
int osu_ranks(const std::vector<validate::OsuTest>& tests, const validate::OsuOptions& o) {
  return std::all_of(tests.begin(), tests.end(), validate::is_point_to_point) ? 2 : o.nranks;
}

std::uint64_t osu_host_buffer_bytes(const std::vector<validate::OsuTest>& tests, const validate::OsuOptions& o) {
  const auto largest = static_cast<std::uint64_t>(*std::max_element(o.sizes.begin(), o.sizes.end()));
  const auto ranks = static_cast<std::uint64_t>(osu_ranks(tests, o));
  return 2 * ranks * largest * (ranks == 2 ? 2 : 1 + ranks);
}

// The candidates --algos or --tuned name (none where neither is given).
std::vector<validate::Candidate> given_candidates(const ValidateFlags& f) {
  if (!f.tuned_dir.empty()) return validate::load_tuned_algorithms(f.tuned_dir);
  return f.algos_dir.empty() ? std::vector<validate::Candidate>{} : validate::load_algorithms(f.algos_dir);
}

void run_collectives(const ValidateFlags& f) {
  if (f.algos_dir.empty() && f.tuned_dir.empty() && f.device == "host")
    throw CLI::ValidationError("--algos/--tuned", "the host device has no NCCL baseline: give algorithms to run");
  const std::filesystem::path tuned(f.tuned_dir);
  const auto candidates = given_candidates(f);
  const auto bounds = f.tuned_dir.empty() ? std::vector<validate::TunedBound>{} : validate::read_tuned_bounds(tuned / "selection.csv");
  const auto inferred = validate::common_rank_count(candidates);
  const int nranks = f.nranks.value_or(inferred.value_or(kDefaultRanks));
  const validate::SweepOptions options = sweep_options(f, nranks);
  // Loaded before the sweep, so that a bad topology is reported before the work, not after.
  std::optional<topo::Topology> topology;
  if (!f.topo.file.empty()) topology = topo::load_topology(f.topo.file, topo::LoadOptions{machine_description(f.topo), {}});
  if (f.device == "host") check_host_memory(validate::host_buffer_bytes(candidates, options), options.sizes, nranks);
  auto backend = make_backend(f);
  fmt::print("# ccforge validate: device {}, {} ranks{}, {} algorithms, -n {} -w {} -c {}\n", backend->name(), nranks,
             !f.nranks && inferred ? " (the algorithms')" : "", candidates.size(), f.iterations, f.warmup, f.check);
  if (f.reduction.root != 0 && std::any_of(candidates.begin(), candidates.end(), [](const validate::Candidate& c) { return ir::is_rooted(c.algorithm.collective); }))
    fmt::print("# -r {}: MSCCL files have no root; runtimes run them as written (for root 0) at every root (formats.md 1.5a), "
               "so they run so here and are checked against root {}\n", options.root, options.root);
  NcclTestsTable table;
  NcclTestsTable::print_header();
  const validate::SweepResult result =
      validate::run_sweep(*backend, candidates, options, [&table](const validate::Measurement& m) { table.add(m); });
  table.finish();
  const bool ran_an_algorithm =
      std::any_of(result.runs.begin(), result.runs.end(), [](const validate::Measurement& m) { return !m.file.empty(); });
  if (!ran_an_algorithm && (!candidates.empty() || result.runs.empty()))
    throw DiagError(Diag{{f.tuned_dir.empty() ? f.algos_dir : f.tuned_dir, 0},
                         fmt::format("ran nothing: no algorithm there runs on {} ranks between -b and -e{}", nranks,
                                     candidates.empty() ? " (the directory has none: every band kept NCCL?)" : ""),
                         "check --nranks, --coll, -b/-e, or pass --all-sizes"});
  validate::write_sweep_outputs(result, bounds, f.out_dir);
  fmt::print("# {} runs; wrote {}/measured.csv, selection.csv, selection.md\n", result.runs.size(), f.out_dir);
  if (topology) {
    sim::SimParams params;
    apply_run_conditions(f.conditions, params);
    const auto csv = validate::model_error_csv(result, candidates, *topology, params);
    write_file_atomically(std::filesystem::path(f.out_dir) / "model_error.csv", csv);
    const std::filesystem::path plots = std::filesystem::path(f.out_dir) / "plots";
    std::filesystem::create_directories(plots);
    for (const auto& [collective, chart] : validate::model_error_charts(result, candidates, *topology, params))
      plot::write_chart(chart, plots / (collective + ".svg"));
    fmt::print("# wrote {}/model_error.csv, plots/ (measured and simulated time per size)\n", f.out_dir);
  }
  for (const std::string& file : result.broken) fmt::print("# BROKEN (never selected): {}\n", file);
  if (!result.broken.empty()) throw CLI::RuntimeError(1);
}

void print_osu_header(validate::OsuTest test, const std::string& device, int nranks) {
  using validate::OsuTest;
  if (validate::is_point_to_point(test)) {
    fmt::print("# ccforge validate --suite osu {} on {}: ranks 0 and 1, once per protocol\n", to_string(test), device);
    fmt::print("{:<10}{:>18}  {}\n", "# Size", test == OsuTest::Latency ? "Latency (us)" : "Bandwidth (MB/s)", "Protocol");
    return;
  }
  fmt::print("# ccforge validate --suite osu {} on {}: {} ranks, each call timed alone (min/max over calls)\n", to_string(test), device, nranks);
  fmt::print("{:<10}{:>18}{:>18}{:>18}{:>12}  {}\n", test == OsuTest::Barrier ? "#" : "# Size", "Avg Latency(us)", "Min Latency(us)",
             "Max Latency(us)", "Iterations", "Algorithm");
}

// One OSU test; false when a collective run failed or computed a wrong element.
bool run_osu_test(const ValidateFlags& f, validate::OsuOptions o, executor::Backend& backend, const std::vector<validate::Candidate>& candidates,
                  bool alone) {
  const std::string name = to_string(o.test);
  const std::filesystem::path out = std::filesystem::path(f.out_dir) / ("osu_" + name + ".csv");
  if (validate::is_point_to_point(o.test)) {
    print_osu_header(o.test, backend.name(), o.nranks);
    const auto rows = validate::run_osu(backend, o, [&o](const validate::OsuRow& r) {
      fmt::print("{:<10}{:>18.2f}  {}\n", r.size_bytes, o.test == validate::OsuTest::Latency ? r.latency_us : r.bandwidth_mbps, r.protocol);
    });
    write_file_atomically(out, validate::osu_csv(rows));
    fmt::print("# wrote {}\n\n", out.string());
    return true;
  }
  bool ok = true, printed_header = false;  // the header waits for a row: a lone test with none is one error line
  const auto rows = validate::run_osu_collective(backend, candidates, o, [&](const validate::OsuCollectiveRow& r) {
    if (!std::exchange(printed_header, true)) print_osu_header(o.test, backend.name(), o.nranks);
    fmt::print("{:<10}{:>18.2f}{:>18.2f}{:>18.2f}{:>12}  {}\n", r.test == "barrier" ? "" : std::to_string(r.size_bytes), r.avg_us,
               r.min_us, r.max_us, r.iterations, r.algorithm);
    if (!r.error.empty()) fmt::print("#   FAILED: {}\n", r.error);
    if (r.wrong > 0) fmt::print("#   WRONG: {} elements differ from the {}'s definition\n", r.wrong, r.test);
    ok = ok && r.error.empty() && r.wrong <= 0;
  });
  if (rows.empty()) {
    const std::string why = fmt::format("no {} implementation runs on {} with {} ranks at these sizes", name, backend.name(), o.nranks);
    const std::string fix = "give --algos or --tuned with one, or check --nranks, -b/-e, or pass --all-sizes";
    if (alone) fail_at("--suite osu " + name, 0, why, fix);
    fmt::print("# ccforge validate --suite osu {}: {} ({})\n\n", name, why, fix);
    return true;
  }
  write_file_atomically(out, validate::osu_collective_csv(rows));
  fmt::print("# wrote {}\n\n", out.string());
  return ok;
}

void run_osu(const ValidateFlags& f) {
  if (f.suite.size() != 2 || f.suite[0] != "osu") fail_at("--suite", 0, "unknown suite", "use --suite osu TEST");
  const std::vector<validate::OsuTest> tests = validate::osu_tests(f.suite[1]);
  if (tests.empty())
    fail_at("--suite", 0, fmt::format("unknown osu test '{}'", f.suite[1]),
            "use latency, bw, bibw, allreduce, allgather, alltoall, barrier, broadcast, gather, reduce, scatter, collectives or benchmarks");
  validate::OsuOptions o;
  ValidateFlags sweep = f;
  if (sweep.sizes.begin == "1K") sweep.sizes.begin = "1";  // -b not given: OSU starts at 1 byte
  o.sizes = sweep_sizes(sweep.sizes, "1M");
  o.iterations = f.iterations;
  o.warmup = f.warmup;
  o.window = f.window;
  o.dtype = parse_data_type_flag("-d", f.dtype);
  o.op = red_op_flag(f.reduction);
  o.check = f.check != 0;
  o.all_sizes = f.all_sizes;
  const auto candidates = given_candidates(f);
  o.nranks = f.nranks.value_or(validate::common_rank_count(candidates).value_or(kDefaultRanks));
  check_root_rank(f.reduction, o.nranks);
  o.root = f.reduction.root;
  if (f.device == "host") check_host_memory(osu_host_buffer_bytes(tests, o), o.sizes, osu_ranks(tests, o));
  auto backend = make_backend(f);
  bool ok = true;
  for (const validate::OsuTest test : tests) {
    o.test = test;
    ok = run_osu_test(f, o, *backend, candidates, tests.size() == 1) && ok;
  }
  if (!ok) throw CLI::RuntimeError(1);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = app.add_subcommand("validate", "run algorithms on real buffers, check every element, measure, write measured selection tables");
  cmd->add_option("--device", flags->device, "host (threads, runs anywhere) or cuda")->check(CLI::IsMember({"host", "cuda"}))->capture_default_str();
  cmd->add_option("--nranks", flags->nranks, "ranks (default: the rank count of the algorithms, else 8); algorithms for other rank counts are skipped")
      ->check(CLI::Range(2, 1024));
  add_coll_flag(*cmd, flags->collectives, "default: the algorithms' collectives");
  auto* algos = add_algos_flag(*cmd, flags->algos_dir);
  cmd->add_option("--tuned", flags->tuned_dir, "directory written by `ccforge tune --out` (algorithms/ and selection.csv)")
      ->check(CLI::ExistingDirectory)->excludes(algos);
  add_size_sweep_flags(*cmd, flags->sizes, "1M on host, 1G on cuda");
  cmd->add_option("-n,--iters", flags->iterations, "timed iterations")->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("-w,--warmup_iters", flags->warmup, "warm-up iterations")->check(CLI::Range(0, 1000000))->capture_default_str();
  cmd->add_option("-c,--check", flags->check, "check every element (1) or not (0)")->check(CLI::Range(0, 1))->capture_default_str();
  add_datatype_flag(*cmd, flags->dtype);
  add_op_flag(*cmd, flags->reduction, "");
  add_root_flag(*cmd, flags->reduction,
                "MSCCL files have no root: they run as runtimes run them, written for root 0, and are checked against this root");
  cmd->add_flag("--all-sizes", flags->all_sizes, "run every algorithm at every size, not only inside its [minBytes, maxBytes]");
  add_out_flag(*cmd, flags->out_dir, "a folder: measured.csv, selection tables, osu CSVs")->capture_default_str();
  cmd->add_option("--watchdog-ms", flags->watchdog_ms, "a run with no progress for this long is a deadlock")->check(CLI::Range(10, 3600000))->capture_default_str();
  cmd->add_option("--suite", flags->suite,
                  "osu TEST: OSU micro-benchmarks; latency, bw, bibw (ranks 0 and 1, per protocol), allreduce, allgather, "
                  "alltoall, barrier, broadcast, gather, reduce, scatter (sizes are OSU's: bytes a rank sends), "
                  "collectives or benchmarks (all)")
      ->expected(2);
  cmd->add_option("-W,--window", flags->window, "osu bw/bibw: messages in flight per window")->check(CLI::Range(1, 1000000))->capture_default_str();
  add_topo_flag(*cmd, flags->topo.file, false, "optional: simulate every run on it too and write model_error.csv");
  add_run_condition_flags(*cmd, flags->conditions);
  add_machine_flags(*cmd, flags->topo);
  cmd->callback([flags] {
    check_output_path(flags->out_dir, OutputKind::Directory, "--out");
    if (!flags->suite.empty()) return run_osu(*flags);
    run_collectives(*flags);
  });
}

}  // namespace ccforge::cli
