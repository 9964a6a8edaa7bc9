// `ccforge sim --topo FILE --coll COLL[,COLL...] --algo nccl|nccl:ALGO[:PROTO]|PATH.xml`: flags and printing
// only; the sim library does the work. Sizes and columns follow nccl-tests; several collectives are
// simulated in turn.
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
#include "ccforge/common/csv.hpp"
#include "ccforge/common/output_path.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/common/data_type.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/plot/selection_chart.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/sim/transports.hpp"
#include "ccforge/topology/topology.hpp"
#include "check_issues.hpp"
#include "commands.hpp"
#include "invocation.hpp"
#include "run_conditions.hpp"
#include "sim_explain.hpp"
#include "reduction_flags.hpp"
#include "shared_flags.hpp"
#include "size_flags.hpp"
#include "topo_input.hpp"

namespace ccforge::cli {
namespace {

// What NCCL's choice across nodes sees of the transport: its plugin, the latency it reports to the tuner,
// the variables it sets (explain's header; empty on one node).
std::string transport_title(const topo::Topology& topo) {
  if (topo.num_nodes() < 2) return "";
  const sim::net::TransportConstants& c = sim::net::transport_constants(topo.transport().kind);
  std::string text = fmt::format("\n# across nodes: {} ({}); reports {:g} us to NCCL's tuner", topo::to_string(c.kind), c.plugin,
                                 c.reported_latency_us.value);
  for (const sim::net::PluginEnv& e : c.env) text += fmt::format("; sets {} unless the run does", e.assignment);
  return text;
}

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

// One collective's rows and the title of its table.
struct CollectiveRows {
  ir::Collective coll;
  std::string title;
  std::vector<Row> rows;
};

// JSON numbers carry the precision the CSV prints (0.001 us, 0.001 GB/s): more digits would claim an
// accuracy the model does not have.
double round_to_thousandths(double x) { return std::round(x * 1000.0) / 1000.0; }

// "allreduce on FILE (8 GPUs)"; with --fail/--degrade the changed topology's name too, and the root of
// a rooted collective.
std::string run_title(const SimFlags& f, const std::string& colls, bool rooted, const topo::Topology& topo, const std::string& topo_file) {
  const bool what_if = !f.topo.fail.empty() || !f.topo.degrade.empty();
  return fmt::format("{} on {}{} ({} GPUs){}", colls, topo_file, what_if ? " as " + topo.name() : "", topo.num_gpus(),
                     rooted ? fmt::format(", root {}", f.reduction.root) : "");
}

std::string run_title(const SimFlags& f, ir::Collective coll, const topo::Topology& topo, const std::string& topo_file) {
  return run_title(f, ir::to_string(coll), ir::is_rooted(coll), topo, topo_file);
}

// The chart's title for several collectives: "allreduce,broadcast on FILE (8 GPUs), root 0".
std::string plot_title(const SimFlags& f, const topo::Topology& topo, const std::string& topo_file) {
  return run_title(f, f.coll, any_rooted(collectives_flag(f.coll)), topo, topo_file);
}

// Table, CSV or JSON. One collective prints as it always has; with several, the table has a block per
// collective, the CSV a first column `collective` and each JSON row a `collective` member.
void print_rows(const SimFlags& f, const std::vector<CollectiveRows>& runs, int ngpus, const RunMetadata& metadata) {
  const bool several = runs.size() > 1;
  if (f.format == "csv") fmt::print("{}size_bytes,count,dtype,time_us,algbw_gbs,busbw_gbs,algorithm\n", several ? "collective," : "");
  nlohmann::json out = f.format == "json" ? to_json(metadata) : nlohmann::json{};
  if (f.format == "json") out["rows"] = nlohmann::json::array();
  for (const CollectiveRows& run : runs) {
    const double factor = ir::bus_bandwidth_factor(run.coll, ngpus);
    const std::string coll = ir::to_string(run.coll);
    if (f.format == "table") {
      fmt::print("{}# {}, {}\n", &run == &runs.front() ? "" : "\n", printable(run.title), printable(f.algo));
      fmt::print("{:>12} {:>12} {:>9} {:>11} {:>9} {:>9}  {}\n", "size(B)", "count", "type", "time(us)", "algbw", "busbw",
                 "algorithm");
    }
    for (const Row& r : run.rows) {
      const double alg = sim::algbw_gbs(r.bytes, r.result.time);
      if (f.format == "csv") {
        fmt::print("{}{},{},{},{:.3f},{:.3f},{:.3f},{}\n", several ? coll + "," : "", r.bytes, r.count, f.dtype, r.result.time.us(),
                   alg, alg * factor, csv_field(r.result.algorithm));
      } else if (f.format == "json") {
        nlohmann::json row = {{"size_bytes", r.bytes},
                              {"count", r.count},
                              {"dtype", f.dtype},
                              {"time_us", round_to_thousandths(r.result.time.us())},
                              {"algbw_gbs", round_to_thousandths(alg)},
                              {"busbw_gbs", round_to_thousandths(alg * factor)},
                              {"algorithm", r.result.algorithm}};
        if (several) row["collective"] = coll;
        out["rows"].push_back(std::move(row));
      } else {
        fmt::print("{:>12} {:>12} {:>9} {:>11.2f} {:>9.2f} {:>9.2f}  {}\n", r.bytes, r.count, f.dtype, r.result.time.us(), alg,
                   alg * factor, printable(r.result.algorithm));
      }
    }
  }
  if (f.format == "json") fmt::print("{}\n", out.dump(2));
}

// --plot: bus bandwidth against size of the simulated rows, a line per collective (named by --algo for
// one collective, by the collective for several).
void write_plot(const SimFlags& f, const std::vector<CollectiveRows>& runs, int ngpus, const std::string& title) {
  plot::Chart chart;
  chart.title = title;
  chart.y_label = "bus bandwidth (GB/s)";
  for (const CollectiveRows& run : runs) {
    if (run.rows.empty()) continue;
    plot::Series series{runs.size() > 1 ? ir::to_string(run.coll) : f.algo, {}, {}, plot::LineStyle::Solid, true};
    for (const Row& r : run.rows) {
      series.x.push_back(static_cast<double>(r.bytes));
      series.y.push_back(plot::bus_bandwidth_gbs(run.coll, ngpus, static_cast<double>(r.bytes), r.result.time.us()));
    }
    chart.series.push_back(std::move(series));
  }
  if (chart.series.empty()) return;
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
  const ParamTable table = sim::param_table(params);
  for (const Param& p : table.all())
    fmt::print("{:<34} {:>10.4g} {:<9} {}\n", p.name, p.value, p.unit, p.source);
}

// The MSCCL file of --algo, checked against --coll and -r; refused (exit 1) when the checker proves it wrong.
ir::Algorithm read_algorithm_file(const SimFlags& f, const std::vector<ir::Collective>& colls) {
  ir::Algorithm algo = ir::read_msccl_xml(f.algo);
  for (const ir::Collective coll : colls)
    if (algo.collective != coll)
      fail_at(f.algo, 1, fmt::format("algorithm is a {} but --coll is {}", ir::to_string(algo.collective), f.coll),
              "pass the matching --coll");
  if (f.reduction.root != 0 && ir::is_rooted(algo.collective))
    fail_at("-r", 0, fmt::format("{} is an MSCCL file, which has no root: runtimes run it as written, from root 0", f.algo),
            "drop -r, or simulate NCCL's baseline with --algo nccl -r N");
  // A schedule the checker proves wrong has no meaningful time: refuse it as `ir check` would.
  if (const ir::CheckReport report = ir::check(algo); !report.ok()) {
    const ir::CheckIssue& first = report.issues.front();
    fmt::print(stderr, "{} {} (sim refuses an algorithm `ccforge ir check` proves wrong: {} problem(s); fix the file)\n",
               issue_location(f.algo, first), first.message, report.issues.size());
    throw CLI::RuntimeError(kExitCheckFailed);
  }
  return algo;
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
  const std::vector<ir::Collective> colls = collectives_flag(f.coll);
  // A trace and an explanation are of one collective; a list would leave it unclear which.
  if (colls.size() > 1 && !f.trace.empty())
    fail_at("--trace", 0, fmt::format("draws one collective, but --coll {} gives {}", f.coll, colls.size()),
            "give one collective with --coll to trace it");
  if (colls.size() > 1 && f.explain)
    fail_at("--explain", 0, fmt::format("explains one collective, but --coll {} gives {}", f.coll, colls.size()),
            "give one collective with --coll");
  if (!f.trace.empty()) check_output_path(f.trace, OutputKind::File, "--trace");
  if (!f.plot.empty()) check_output_path(f.plot, OutputKind::File, "--plot"), plot::check_chart_file(f.plot);
  const DataType dtype = parse_data_type_flag("-d", f.dtype);
  red_op_flag(f.reduction);  // checked; the model's time does not depend on it
  const std::vector<ByteCount> sizes = sweep_sizes(f.sizes, "1G");
  const ByteCount trace_size = traced_size(f.trace_size, sizes);
  topo::LoadOptions options = f.profile.empty() ? topo::LoadOptions{} : sim::apply_profile(f.profile, params);
  apply_run_conditions(f.conditions, params);
  options.machine = machine_description(f.topo);
  const topo::Topology topo = load_topology(f.topo, topo_file, options);
  warn_sizes_beyond_gpu_memory(topo, sizes);
  check_root_rank(f.reduction, topo.num_gpus());
  check_launch_fits(f.conditions, topo.num_gpus());
  const auto request = sim::parse_nccl_request(f.algo);
  if (!request && f.algo.starts_with("nccl"))
    fail_at("--algo", 0, "unknown NCCL choice '" + f.algo + "'", "use nccl, nccl:ring|tree|nvls[:ll|ll128|simple]");
  const std::optional<ir::Algorithm> algo = request ? std::nullopt : std::optional(read_algorithm_file(f, colls));
  auto simulate = [&](ir::Collective coll, ByteCount bytes, sim::Trace* trace, const sim::SimParams& with) {
    const sim::CallSpec call{bytes, dtype, f.reduction.root};
    return algo ? sim::simulate(topo, *algo, call, with, trace) : sim::simulate_nccl(topo, coll, call, *request, with, trace);
  };
  if (f.explain) {
    if (!request || request->algo) fail_at("--explain", 0, "explains NCCL's own choice", "use --algo nccl");
    if (f.format == "csv") fail_at("--format", 0, "--explain prints a table or JSON", "use --format table or json");
    const ir::Collective coll = colls.front();
    std::vector<sim::NcclExplanation> explanations;
    for (ByteCount size : sizes)
      if (const ByteCount bytes = sim::call_bytes(size, dtype, coll, topo.num_gpus()); bytes > 0)
        explanations.push_back(sim::explain_nccl(topo, coll, {bytes, dtype, f.reduction.root}, params));
    const RunMetadata metadata =
        f.format == "json" ? run_metadata(kSimExplainJsonSchema, input_files(topo_file, f.profile)) : RunMetadata{};
    print_explanations(explanations, f.format, run_title(f, coll, topo, topo_file) + transport_title(topo), f.min_gain, metadata);
    return;
  }
  std::vector<CollectiveRows> runs;
  for (const ir::Collective coll : colls) {
    CollectiveRows run{coll, run_title(f, coll, topo, topo_file), {}};
    for (ByteCount size : sizes) {
      const ByteCount bytes = sim::call_bytes(size, dtype, coll, topo.num_gpus());
      if (bytes == 0) continue;
      run.rows.push_back(Row{size, bytes, bytes / static_cast<ByteCount>(size_of(dtype)), simulate(coll, bytes, nullptr, params)});
    }
    runs.push_back(std::move(run));
  }
  const RunMetadata metadata =
      f.format == "json" ? run_metadata(kSimJsonSchema, input_files(topo_file, f.profile, algo ? f.algo : "")) : RunMetadata{};
  print_rows(f, runs, topo.num_gpus(), metadata);
  if (!f.plot.empty()) write_plot(f, runs, topo.num_gpus(), runs.size() == 1 ? runs.front().title : plot_title(f, topo, topo_file));
  const std::vector<Row>& rows = runs.front().rows;
  const auto traced = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.size == trace_size; });
  if (!f.trace.empty() && traced != rows.end()) {
    // Traced without the host launch, which the engine does not see, then drawn with it.
    sim::SimParams device_only = params;
    device_only.launch.gpus_per_thread = 0;
    sim::Trace trace;
    const SimTime device = simulate(colls.front(), traced->bytes, &trace, device_only).time;
    for (int rank = 0; rank < topo.num_gpus(); ++rank)
      trace.rank_labels.push_back(fmt::format("rank {} ({})", rank, topo.gpu(rank).model->name));
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
  add_topo_flag(*cmd, flags->topo.file, true);
  add_machine_flags(*cmd, flags->topo);
  add_what_if_flags(*cmd, flags->topo);
  add_coll_flag(*cmd, flags->coll, "required; several are simulated in turn, --trace and --explain take one");
  cmd->add_option("--algo", flags->algo,
                  "nccl, nccl:ALGO[:PROTO] (ring, tree, nvls, nvlstree, pat, p2p; allpairs: RCCL's MSCCL allreduce on MI300X; ll, ll128, simple) or an MSCCL XML file")
      ->capture_default_str();
  add_size_sweep_flags(*cmd, flags->sizes, "1G");
  add_datatype_flag(*cmd, flags->dtype);
  add_op_flag(*cmd, flags->reduction, "checked, but no model charges one operator more than another: the time is the same");
  add_root_flag(*cmd, flags->reduction, "with --algo nccl, where NCCL's chain or p2p pattern starts or ends; an MSCCL file has none");
  add_profile_flag(*cmd, flags->profile);
  add_run_condition_flags(*cmd, flags->conditions);
  add_format_flag(*cmd, flags->format, {"table", "csv", "json"});
  cmd->add_option("--trace", flags->trace, "write a Chrome/Perfetto trace (JSON) of one size here");
  cmd->add_option("--trace-size", flags->trace_size, "the size --trace draws, one of the sweep's (default: the smallest)");
  add_plot_flag(*cmd, flags->plot, "bus bandwidth against size, a line per collective");
  cmd->add_flag("--explain", flags->explain,
                "with --algo nccl: per size every algorithm x protocol x channels NCCL can run, its pick, the fastest");
  add_min_gain_flag(*cmd, flags->min_gain, "--explain marks NCCL's pick LOSES when beaten")->check(finite_range(0, kMaxMinGain));
  cmd->add_flag("--dump-params", flags->dump_params, "print every sim.* parameter with unit and source, then exit");
  cmd->callback([flags] { run(*flags); });
}

}  // namespace ccforge::cli
