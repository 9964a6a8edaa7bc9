// `ccforge sim --topo FILE --coll COLL --algo nccl|nccl:ALGO[:PROTO]|PATH.xml`: flags and printing only;
// the sim library does the work. Sizes and columns follow nccl-tests.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/output_path.hpp"
#include "ccforge/common/data_type.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/plot/selection_chart.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "check_issues.hpp"
#include "commands.hpp"
#include "invocation.hpp"
#include "run_conditions.hpp"
#include "sim_explain.hpp"
#include "reduction_flags.hpp"
#include "size_flags.hpp"
#include "topo_input.hpp"

namespace ccforge::cli {
namespace {

struct SimFlags {
  TopoInput topo;
  RunConditionFlags conditions;
  std::string coll;
  std::string algo = "nccl";
  SizeSweepFlags sizes;
  ReductionFlags reduction;
  std::string dtype = "half";
  std::string profile;
  std::string format = "table";
  std::string trace;
  std::string trace_size;
  std::string plot;
  bool dump_params = false;
  bool explain = false;
  double min_gain = 0.03;
};

struct Row {
  ByteCount size;   // as swept (-b/-e/-f)
  ByteCount bytes;  // of the call: size rounded down to whole elements
  std::uint64_t count;
  sim::SimResult result;
};

// Element count of a call as nccl-tests reports it; the size is rounded down to whole elements (and to
// whole per-rank shares for collectives whose size is the total over ranks).
ByteCount call_bytes(ByteCount size, DataType dtype, ir::Collective coll, int ngpus) {
  const ByteCount unit = static_cast<ByteCount>(size_of(dtype)) * static_cast<ByteCount>(ir::ranks_in_size(coll, ngpus));
  return size / unit * unit;
}

// JSON numbers carry the precision the CSV prints (0.001 us, 0.001 GB/s): more digits would claim an
// accuracy the model does not have.
double round_to_thousandths(double x) { return std::round(x * 1000.0) / 1000.0; }

// "allreduce on FILE (8 GPUs)"; with --fail/--degrade the changed topology's name too, and the root of
// a rooted collective.
std::string run_title(const SimFlags& f, ir::Collective coll, const topo::Topology& topo, const std::string& topo_file) {
  const bool what_if = !f.topo.fail.empty() || !f.topo.degrade.empty();
  return fmt::format("{} on {}{} ({} GPUs){}", ir::to_string(coll), topo_file, what_if ? " as " + topo.name() : "", topo.num_gpus(),
                     ir::is_rooted(coll) ? fmt::format(", root {}", f.reduction.root) : "");
}

void print_rows(const SimFlags& f, const std::vector<Row>& rows, ir::Collective coll, int ngpus, const std::string& title,
                const RunMetadata& metadata) {
  const double factor = ir::bus_bandwidth_factor(coll, ngpus);
  if (f.format == "csv") {
    fmt::print("size_bytes,count,dtype,time_us,algbw_gbs,busbw_gbs,algorithm\n");
    for (const Row& r : rows) {
      const double alg = sim::algbw_gbs(r.bytes, r.result.time);
      fmt::print("{},{},{},{:.3f},{:.3f},{:.3f},{}\n", r.bytes, r.count, f.dtype, r.result.time.us(), alg, alg * factor,
                 r.result.algorithm);
    }
  } else if (f.format == "json") {
    nlohmann::json out = to_json(metadata);
    out["rows"] = nlohmann::json::array();
    for (const Row& r : rows) {
      const double alg = sim::algbw_gbs(r.bytes, r.result.time);
      out["rows"].push_back({{"size_bytes", r.bytes},
                             {"count", r.count},
                             {"dtype", f.dtype},
                             {"time_us", round_to_thousandths(r.result.time.us())},
                             {"algbw_gbs", round_to_thousandths(alg)},
                             {"busbw_gbs", round_to_thousandths(alg * factor)},
                             {"algorithm", r.result.algorithm}});
    }
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("# {}, {}\n", title, f.algo);
    fmt::print("{:>12} {:>12} {:>9} {:>11} {:>9} {:>9}  {}\n", "size(B)", "count", "type", "time(us)", "algbw", "busbw",
               "algorithm");
    for (const Row& r : rows) {
      const double alg = sim::algbw_gbs(r.bytes, r.result.time);
      fmt::print("{:>12} {:>12} {:>9} {:>11.2f} {:>9.2f} {:>9.2f}  {}\n", r.bytes, r.count, f.dtype, r.result.time.us(),
                 alg, alg * factor, r.result.algorithm);
    }
  }
}

// --plot: bus bandwidth against size of the simulated rows.
void write_plot(const SimFlags& f, const std::vector<Row>& rows, ir::Collective coll, int ngpus, const std::string& title) {
  plot::Series series{f.algo, {}, {}, plot::LineStyle::Solid, true};
  for (const Row& r : rows) {
    series.x.push_back(static_cast<double>(r.bytes));
    series.y.push_back(plot::bus_bandwidth_gbs(coll, ngpus, static_cast<double>(r.bytes), r.result.time.us()));
  }
  plot::Chart chart;
  chart.title = title;
  chart.y_label = "bus bandwidth (GB/s)";
  chart.series.push_back(std::move(series));
  plot::write_chart(chart, f.plot);
  fmt::print(stderr, "sim: wrote {}\n", f.plot);
}

// --trace-size: the swept size to trace (default the smallest); a size outside the sweep is an error.
ByteCount traced_size(const std::string& flag, const std::vector<ByteCount>& sizes) {
  if (flag.empty()) return sizes.front();
  const ByteCount size = size_flag("--trace-size", flag);
  if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) {
    std::vector<std::string> names;
    for (ByteCount s : sizes) names.push_back(format_size(s));
    fail_at("--trace-size", 0, fmt::format("{} is not one of the simulated sizes", flag),
            fmt::format("use one of {}", fmt::join(names, ", ")));
  }
  return size;
}

// The protocol every slice of the trace ran with: the MSCCL file's, or NCCL's pick ("nccl:ring:LL").
std::string traced_protocol(const std::optional<ir::Algorithm>& algo, const sim::SimResult& result) {
  if (algo) return ir::to_string(algo->protocol);
  return result.algorithm.substr(result.algorithm.rfind(':') + 1);
}

void print_params(const sim::SimParams& params) {
  for (const Param& p : params.table.all())
    fmt::print("{:<34} {:>10.4g} {:<9} {}\n", p.name, p.value, p.unit, p.source);
}

void run(const SimFlags& f) {
  sim::SimParams params;
  if (f.dump_params) {
    if (!f.profile.empty()) sim::apply_profile(f.profile, params);
    apply_run_conditions(f.conditions, params);
    print_params(params);
    return;
  }
  const std::string topo_file = topology_file(f.topo, "--topo FILE");
  if (f.coll.empty()) fail_at("ccforge sim", 0, "--coll is required", "see --help");
  if (!f.trace.empty()) check_output_path(f.trace, OutputKind::File, "--trace");
  if (!f.plot.empty()) check_output_path(f.plot, OutputKind::File, "--plot"), plot::check_chart_file(f.plot);
  const auto coll = ir::collective_from_string(f.coll);
  if (!coll) {
    fail_at("--coll", 0, "unknown collective '" + f.coll + "'",
              "use allreduce, allgather, reducescatter, alltoall, broadcast, reduce, gather or scatter");
  }
  const DataType dtype = parse_data_type_flag("-d", f.dtype);
  red_op_flag(f.reduction);  // checked; the model's time does not depend on it
  if (f.format != "table" && f.format != "csv" && f.format != "json") {
    fail_at("--format", 0, "unknown format '" + f.format + "'", "use table, csv or json");
  }
  const std::vector<ByteCount> sizes = sweep_sizes(f.sizes, "1G");
  const ByteCount trace_size = traced_size(f.trace_size, sizes);
  topo::LoadOptions options = f.profile.empty() ? topo::LoadOptions{} : sim::apply_profile(f.profile, params);
  apply_run_conditions(f.conditions, params);
  options.machine = machine_description(f.topo);
  const topo::Topology topo = load_topology(f.topo, topo_file, options);
  warn_sizes_beyond_gpu_memory(topo, sizes);
  check_root_rank(f.reduction, topo.num_gpus());
  const auto request = sim::parse_nccl_request(f.algo);
  std::optional<ir::Algorithm> algo;
  if (!request) {
    if (f.algo.starts_with("nccl")) {
      fail_at("--algo", 0, "unknown NCCL choice '" + f.algo + "'", "use nccl, nccl:ring|tree|nvls[:ll|ll128|simple]");
    }
    algo = ir::read_msccl_xml(f.algo);
    if (algo->collective != *coll) {
      fail_at(
          f.algo, 1,
          fmt::format("algorithm is a {} but --coll is {}", ir::to_string(algo->collective), ir::to_string(*coll)),
          "pass the matching --coll");
    }
    if (f.reduction.root != 0 && ir::is_rooted(*coll))
      fail_at("-r", 0, fmt::format("{} is an MSCCL file, which has no root: runtimes run it as written, from root 0", f.algo),
              "drop -r, or simulate NCCL's baseline with --algo nccl -r N");
    // A schedule the checker proves wrong has no meaningful time: refuse it as `ir check` would.
    if (const ir::CheckReport report = ir::check(*algo); !report.ok()) {
      const ir::CheckIssue& first = report.issues.front();
      fmt::print(stderr, "{} {} (sim refuses an algorithm `ccforge ir check` proves wrong: {} problem(s); fix the file)\n",
                 issue_location(f.algo, first), first.message, report.issues.size());
      throw CLI::RuntimeError(kExitCheckFailed);
    }
  }
  auto simulate = [&](ByteCount bytes, sim::Trace* trace, const sim::SimParams& with) {
    const sim::CallSpec call{bytes, dtype, f.reduction.root};
    return algo ? sim::simulate(topo, *algo, call, with, trace)
                : sim::simulate_nccl(topo, *coll, call, *request, with, trace);
  };
  const std::string title = run_title(f, *coll, topo, topo_file);
  if (f.explain) {
    if (!request || request->algo) fail_at("--explain", 0, "explains NCCL's own choice", "use --algo nccl");
    if (f.format == "csv") fail_at("--format", 0, "--explain prints a table or JSON", "use --format table or json");
    std::vector<sim::NcclExplanation> explanations;
    for (ByteCount size : sizes)
      if (const ByteCount bytes = call_bytes(size, dtype, *coll, topo.num_gpus()); bytes > 0)
        explanations.push_back(sim::explain_nccl(topo, *coll, {bytes, dtype, f.reduction.root}, params));
    const RunMetadata metadata =
        f.format == "json" ? run_metadata(kSimExplainJsonSchema, input_files(topo_file, f.profile)) : RunMetadata{};
    print_explanations(explanations, f.format, title, f.min_gain, metadata);
    return;
  }
  std::vector<Row> rows;
  for (ByteCount size : sizes) {
    const ByteCount bytes = call_bytes(size, dtype, *coll, topo.num_gpus());
    if (bytes == 0) continue;
    rows.push_back(Row{size, bytes, bytes / static_cast<ByteCount>(size_of(dtype)), simulate(bytes, nullptr, params)});
  }
  const RunMetadata metadata =
      f.format == "json" ? run_metadata(kSimJsonSchema, input_files(topo_file, f.profile, algo ? f.algo : "")) : RunMetadata{};
  print_rows(f, rows, *coll, topo.num_gpus(), title, metadata);
  if (!f.plot.empty() && !rows.empty()) write_plot(f, rows, *coll, topo.num_gpus(), title);
  const auto traced = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.size == trace_size; });
  if (!f.trace.empty() && traced != rows.end()) {
    // Traced without the host launch, which the engine does not see, then drawn with it.
    sim::SimParams device_only = params;
    device_only.launch.gpus_per_thread = 0;
    sim::Trace trace;
    const SimTime device = simulate(traced->bytes, &trace, device_only).time;
    for (int rank = 0; rank < topo.num_gpus(); ++rank)
      trace.rank_labels.push_back(fmt::format("rank {} ({})", rank, topo.gpu(rank).model));
    trace.protocol = traced_protocol(algo, traced->result);
    sim::add_latency_slices(trace, device, sim::benchmark_iteration_time(SimTime{0}, params));
    write_file_atomically(f.trace, sim::to_chrome_trace_json(trace));
    fmt::print(stderr, "sim: wrote the trace of {} bytes to {}\n", traced->bytes, f.trace);
  }
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto flags = std::make_shared<SimFlags>();
  CLI::App* cmd =
      app.add_subcommand("sim", "simulate a collective (NCCL's choice or an MSCCL XML algorithm) on a topology");
  cmd->add_option("--topo", flags->topo.file, "topology file (NCCL XML or ccforge node/cluster file; default: $NCCL_TOPO_FILE)");
  add_machine_flags(*cmd, flags->topo);
  add_what_if_flags(*cmd, flags->topo);
  cmd->add_option("--coll", flags->coll,
                  "one collective: allreduce, allgather, reducescatter, alltoall, broadcast, reduce, gather or scatter");
  cmd->add_option("--algo", flags->algo,
                  "nccl, nccl:ALGO[:PROTO] (ring, tree, nvls, nvlstree, pat, p2p; allpairs: RCCL's MSCCL allreduce on MI300X; ll, ll128, simple) or an MSCCL XML file")
      ->capture_default_str();
  add_size_sweep_flags(*cmd, flags->sizes, "1G");
  cmd->add_option("-d,--datatype", flags->dtype, "element type: " + data_type_names())->capture_default_str();
  add_op_flag(*cmd, flags->reduction, " (checked, but no model charges one operator more than another: the time is the same)");
  add_root_flag(*cmd, flags->reduction, " (--algo nccl: where NCCL's chain or p2p pattern starts or ends; an MSCCL file has none)");
  cmd->add_option("--profile", flags->profile, "profile file overriding link.* and sim.* parameters");
  add_run_condition_flags(*cmd, flags->conditions);
  cmd->add_option("--format", flags->format, "table, csv or json")->capture_default_str();
  cmd->add_option("--trace", flags->trace, "write a Chrome/Perfetto trace (JSON) of one size here");
  cmd->add_option("--trace-size", flags->trace_size, "the size --trace draws, one of the sweep's (default: the smallest)");
  cmd->add_option("--plot", flags->plot, "draw bus bandwidth against size here (.svg or .png)");
  cmd->add_flag("--explain", flags->explain,
                "with --algo nccl: per size every algorithm x protocol x channels NCCL can run, its pick, the fastest");
  cmd->add_option("--min-gain", flags->min_gain, "--explain flags NCCL's pick when the fastest is this much faster")
      ->capture_default_str();
  cmd->add_flag("--dump-params", flags->dump_params, "print every sim.* parameter with unit and source, then exit");
  cmd->callback([flags] { run(*flags); });
}

}  // namespace ccforge::cli
