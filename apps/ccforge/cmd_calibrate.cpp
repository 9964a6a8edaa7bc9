// `ccforge calibrate --topo FILE --measured FILE... --out PROFILE.xml`: flags and printing only; the
// validate library reads the measurements and fits the model.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "ccforge/common/output_path.hpp"
#include "ccforge/sim/transports.hpp"
#include "ccforge/validate/charts.hpp"
#include "ccforge/validate/validate.hpp"
#include "commands.hpp"
#include "reduction_flags.hpp"
#include "run_conditions.hpp"
#include "shared_flags.hpp"
#include "topo_input.hpp"

namespace ccforge::cli {
namespace {

struct CalibrateFlags {
  TopoInput topo;
  RunConditionFlags conditions;
  std::vector<std::string> measured;
  std::string out;
  std::string plot;
  std::string holdout = "alternate";
  std::string coll;
  std::string algos_dir;
  int max_iterations = 30;
};

std::string joined(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : " ") + f;
  return out;
}

void print_table(const validate::CalibrationResult& r, bool held_out) {
  fmt::print("# {} points: error before and after, per size\n", held_out ? "held-out" : "fitted");
  fmt::print("#{:>13} {:>14} {:>12} {:>12} {:>10} {:>12} {:>10}\n", "collective", "size(B)", "measured_us", "before_us", "before_%",
             "after_us", "after_%");
  for (const auto& p : r.points) {
    if (p.held_out != held_out) continue;
    fmt::print("{:>14} {:>14} {:>12.2f} {:>12.2f} {:>10.1f} {:>12.2f} {:>10.1f}\n", p.collective, p.size_bytes, p.measured_us, p.before_us,
               (p.before_us / p.measured_us - 1) * 100, p.after_us, (p.after_us / p.measured_us - 1) * 100);
  }
}

void print_summary(const validate::CalibrationResult& r) {
  for (std::size_t k = 0; k < r.fitted.size(); ++k)
    fmt::print("# {:<34} {:>10.4g} -> {:>10.4g} {}\n", r.fitted[k].name, r.initial[k].value, r.fitted[k].value, r.fitted[k].unit);
  for (const bool held : {false, true}) {
    const auto before = validate::mean_abs_error_pct(r.points, held, false), after = validate::mean_abs_error_pct(r.points, held, true);
    if (before && after)
      fmt::print("# mean |error| on {} sizes: before {:.2f}%, after {:.2f}%\n", held ? "held-out" : "fitted", *before, *after);
  }
}

bool is_measured_csv(const std::string& file) { return file.ends_with(".csv"); }

// The run's conditions: the flags, else what the logs' headers print (all logs must agree).
RunConditionFlags conditions_from_logs(const CalibrateFlags& f, bool launch_given, const topo::Topology& topology) {
  RunConditionFlags c = f.conditions;
  std::optional<validate::LogConditions> first;
  for (const std::string& file : f.measured) {
    if (is_measured_csv(file)) continue;
    const validate::LogConditions log = validate::read_nccl_tests_conditions(file);
    validate::check_log_matches_topology(log, topology);
    if (first && (log.gpus_per_thread != first->gpus_per_thread || log.nccl_version != first->nccl_version))
      fail_at(file, 0, fmt::format("ran with nGpus {} and NCCL {}, but {} with nGpus {} and NCCL {}", log.gpus_per_thread,
                                   log.nccl_version.value_or("?"), first->file, first->gpus_per_thread, first->nccl_version.value_or("?")),
              "calibrate logs of one launch mode and NCCL version together");
    if (!first) first = log;
  }
  if (first && !launch_given) {
    c.threads = first->threads;
    c.gpus_per_thread = first->gpus_per_thread;
  }
  if (first && first->nccl_version && c.nccl_version.empty()) c.nccl_version = *first->nccl_version;
  return c;
}

void run(const CalibrateFlags& f, bool launch_given) {
  const std::string topo_file = topology_file(f.topo, "--topo FILE");
  topo::LoadOptions load;
  load.machine = machine_description(f.topo);
  check_output_path(f.out, OutputKind::File, "--out");
  if (!f.plot.empty()) check_output_path(f.plot, OutputKind::File, "--plot"), plot::check_chart_file(f.plot);
  // --coll keeps those collectives' runs; a log that does not name its collective is of the one given.
  const std::vector<ir::Collective> colls = f.coll.empty() ? std::vector<ir::Collective>{} : collectives_flag(f.coll);
  const std::optional<ir::Collective> unnamed = colls.size() == 1 ? std::optional(colls.front()) : std::nullopt;
  std::vector<validate::Measurement> measured;
  for (const std::string& file : f.measured) {
    auto runs = validate::read_measurements(file, unnamed);
    measured.insert(measured.end(), runs.begin(), runs.end());
  }
  if (!colls.empty()) measured = validate::runs_of_collectives(std::move(measured), colls);
  const auto algorithms = f.algos_dir.empty() ? std::vector<validate::Candidate>{} : validate::load_algorithms(f.algos_dir);
  validate::CalibrationOptions options;
  const topo::Topology topology = topo::load_topology(topo_file, load);
  const RunConditionFlags conditions = conditions_from_logs(f, launch_given, topology);
  check_launch_fits(conditions, topology.num_gpus());
  apply_run_conditions(conditions, options.base);
  fmt::print("# run conditions: -t {} -g {}, NCCL {}{}\n", conditions.threads, conditions.gpus_per_thread,
             conditions.nccl_version.empty() ? "2.18 (default)" : conditions.nccl_version, conditions.env.empty() ? "" : ", --env given");
  if (topology.num_nodes() > 1) {
    // The fit starts from the cluster transport's own message cost, and the profile records the transport.
    const topo::TransportKind kind = topology.transport().kind;
    sim::set_param(options.base, "sim.net.message_us", sim::net::transport_constants(kind).message_us.value, "transport");
    sim::set_param(options.base, "sim.net.transport", sim::net::transport_profile_value(kind), "transport");
  }
  options.params = validate::default_fit_params(topology, options.base);
  options.holdout = f.holdout == "none" ? validate::Holdout::None : validate::Holdout::Alternate;
  options.max_iterations = f.max_iterations;
  options.source = "calibrate: fitted to " + joined(f.measured);
  auto result = validate::calibrate(topo_file, load, measured, algorithms, options);
  fmt::print("# ccforge calibrate: {} measured runs, {} parameters, {} iterations\n", measured.size(), result.fitted.size(), result.iterations);
  if (f.holdout != "none") print_table(result, true);
  print_table(result, false);
  print_summary(result);
  if (!result.not_identified.empty())
    fmt::print("# not fitted (no measured point depends on them): {}\n", fmt::join(result.not_identified, ", "));
  for (const auto& held : result.held) fmt::print("# held at its default: {}: {}\n", held.name, held.reason);
  if (topology.num_nodes() > 1) {
    fmt::print("# transport {}: the profile holds only for clusters on it; held at the transport's cited values: the latency "
               "its plugin reports to NCCL, its framing share and the variables its plugin sets\n",
               topo::to_string(topology.transport().kind));
    result.fitted.push_back({"sim.net.transport", static_cast<double>(options.base.constants.net_transport), "kind",
                             fmt::format("calibrate: the transport of {}", topo_file)});
  }
  validate::write_calibrated_profile(result, f.out);
  fmt::print("# wrote {}\n", f.out);
  if (!f.plot.empty()) {
    plot::write_chart(validate::calibration_chart(result, fmt::format("calibrate on {}: error per size", topo_file)), f.plot);
    fmt::print("# wrote {}\n", f.plot);
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = app.add_subcommand("calibrate", "fit the simulator's physical parameters to measured times, write a profile");
  add_topo_flag(*cmd, flags->topo.file, true, "the one the measurements ran on");
  add_machine_flags(*cmd, flags->topo);
  cmd->add_option("--measured", flags->measured, "ccforge measured.csv or nccl-tests output logs")->required()->check(CLI::ExistingFile);
  add_out_flag(*cmd, flags->out, "the profile, read by sim and tune --profile")->required();
  add_plot_flag(*cmd, flags->plot, "the error per size before and after the fit");
  cmd->add_option("--holdout", flags->holdout, "alternate: fit on every other size, report error on the rest; none: fit on all")
      ->check(CLI::IsMember({"alternate", "none"}))->capture_default_str();
  add_coll_flag(*cmd, flags->coll,
                "default: all; fit only these collectives' runs; a log without a 'Collective test starting' line is of the one given");
  add_algos_flag(*cmd, flags->algos_dir, "those measured.csv names");
  cmd->add_option("--max-iterations", flags->max_iterations, "at most this many Levenberg-Marquardt iterations")->check(CLI::Range(1, 1000))->capture_default_str();
  add_run_condition_flags(*cmd, flags->conditions);
  cmd->callback([flags, cmd] { run(*flags, cmd->count("-g") + cmd->count("-t") > 0); });
}

}  // namespace ccforge::cli
