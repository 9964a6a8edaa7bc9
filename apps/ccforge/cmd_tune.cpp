// `ccforge tune --topo FILE ...`: flags, progress and printing only; the search library does the work.
#include <memory>
#include <algorithm>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "ccforge/common/output_path.hpp"
#include "ccforge/common/data_type.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "commands.hpp"
#include "invocation.hpp"
#include "run_conditions.hpp"
#include "reduction_flags.hpp"
#include "shared_flags.hpp"
#include "size_flags.hpp"
#include "tune_progress.hpp"
#include "topo_input.hpp"

namespace ccforge::cli {
namespace {

// A bound on --jobs: more workers than any machine has cores.
constexpr int kMaxJobs = 4096;

struct TuneFlags {
  TopoInput topo;
  RunConditionFlags conditions;
  std::string coll = "all";
  SizeSweepFlags sizes;
  ReductionFlags reduction;
  std::string out = "tune-out";
  int jobs = 0;
  double min_gain = 0.03;
  std::string dtype = "half";
  std::string profile;
  bool resume = false;
  bool all_candidates = false;
  bool no_prune = false;
  bool list = false;
  std::string runtime;  // empty: the topology's GPU vendor's runtime
  bool export_rooted = false;
  bool replace = false;
  bool nccl_space = false, no_nccl_space = false;  // neither: search::kNcclSpaceAutoRanks decides
};

void print_registry() {
  for (const auto& g : search::generators()) {
    std::string colls;
    for (auto c : g.collectives) colls += std::string(colls.empty() ? "" : ",") + ir::to_string(c);
    fmt::print("{:<18} {}\n{:<18} collectives: {}\n{:<18} source: {}\n", g.name, g.description, "", colls, "", g.citation);
  }
}

void print_summary(const search::TuneResult& r, const std::vector<sim::SelectionRow>& rows) {
  std::size_t candidates = 0;
  for (const auto& ct : r.collectives) candidates += ct.candidates.accepted.size();
  fmt::print("tuned {} collective(s) on {}: {} candidates, {} simulations ({} pruned) in {:.2f} s ({:.0f} simulations/s)\n",
             r.collectives.size(), r.topology, candidates, r.simulations, r.pruned, r.elapsed_s,
             r.elapsed_s > 0 ? static_cast<double>(r.simulations) / r.elapsed_s : 0.0);
  // The allreduce table when allreduce was tuned, else the first collective's.
  const bool allreduce = std::any_of(r.collectives.begin(), r.collectives.end(),
                                     [](const auto& ct) { return ct.collective == ir::Collective::AllReduce; });
  const ir::Collective shown = allreduce ? ir::Collective::AllReduce : r.collectives.front().collective;
  fmt::print("\n{:<10} {:>10} {:>10} {:>10} {:>8}  {:<28} {:<7} {:>6} {:>6}  {}\n", "coll", "bytes", "nccl_us", "best_us", "speedup",
             "algorithm", "proto", "%bound", "error%", "nccl");
  for (const sim::SelectionRow& row : rows) {
    if (row.collective != shown) continue;
    fmt::print("{:<10} {:>10} {:>10.3f} {:>10.3f} {:>7.3f}x  {:<28} {:<7} {:>6.1f} {:>6}  {}/{}\n", ir::to_string(row.collective),
               format_size(row.size_bytes), *row.nccl_us, *row.best_us, *row.speedup(), row.algorithm,
               row.protocol ? ir::to_string(*row.protocol) : "", row.lower_bound_pct().value_or(0.0),
               row.expected_error_pct ? fmt::format("{:.1f}", *row.expected_error_pct) : "", sim::to_string(row.nccl->algo),
               ir::to_string(row.nccl->proto));
  }
}

void run_tune(const TuneFlags& f, const search::WorkShare* share) {
  // Rank 0 of a job prints (and writes the outputs); the other ranks work silently.
  const bool lead = share == nullptr || share->rank() == 0;
  if (f.list) return lead ? print_registry() : void();
  const std::string topo_file = topology_file(f.topo, "--topo FILE (or use --list)");
  check_output_path(f.out, OutputKind::Directory, "--out");
  search::TuneOptions options;
  options.collectives = collectives_flag(f.coll);
  red_op_flag(f.reduction);  // checked; neither the files nor the model depend on it
  // The files tune exports have no root attribute and runtimes run them for every root as written
  // (formats.md §1.5a): a tune for another root would ship files that compute root 0's result.
  if (f.reduction.root != 0 && any_rooted(options.collectives))
    fail_at("-r", 0, fmt::format("root {}: exported MSCCL files have no root and runtimes run them from root 0 for every root", f.reduction.root),
            "tune with -r 0, the default; at other roots NCCL's own algorithm is what runs");
  options.sizes = sweep_sizes(f.sizes, "1G");
  options.min_gain = f.min_gain;
  options.jobs = f.jobs;
  options.dtype = parse_data_type_flag("-d", f.dtype);
  options.out_dir = f.out;
  options.resume = f.resume;
  options.write_candidates = f.all_candidates;
  options.prune = !f.no_prune;
  options.export_rooted = f.export_rooted;
  options.replace = f.replace;
  if (f.nccl_space || f.no_nccl_space) options.nccl_space = f.nccl_space;
  if (!f.runtime.empty()) {
    options.runtime = ir::runtime_from_string(f.runtime);
    if (!options.runtime)
      throw CLI::ValidationError("--runtime", "unknown runtime '" + f.runtime + "' (use one of: " + ir::runtime_names() + ")");
  }
  sim::SimParams params;
  topo::LoadOptions load = f.profile.empty() ? topo::LoadOptions{} : sim::apply_profile(f.profile, params);
  apply_run_conditions(f.conditions, params);
  load.machine = machine_description(f.topo);
  const topo::Topology topology = load_topology(f.topo, topo_file, load);
  refuse_sizes_beyond_gpu_memory(topology, options.sizes);
  check_root_rank(f.reduction, topology.num_gpus());
  check_launch_fits(f.conditions, topology.num_gpus());
  options.share = share;
  options.metadata = run_metadata(kTuneReportSchema, input_files(topo_file, f.profile));
  if (!lead) {
    search::tune(topology, options, params);
    return;
  }
  if (share && share->size() > 1) fmt::print(stderr, "sharing the tune among {} MPI processes\n", share->size());
  const search::TuneResult result = [&] {
    TuneProgressLog progress;  // ends (its last line too) before the summary prints
    options.progress = progress.callback();
    return search::tune(topology, options, params);
  }();
  print_summary(result, search::selection_rows(result));
  fmt::print("\nwrote {}/selection.csv, selection.md, bands.csv, {}report.json, DEPLOY.md, env.sh, plots/, algorithms/{}{} for {} "
             "on {} SMs/CUs\n",
             f.out, result.nccl_space_searched ? "nccl-tuner.conf, " : "", f.export_rooted ? ", algorithms-rooted/" : "", f.all_candidates ? ", candidates/" : "",
             ir::runtime_target(result.target.runtime).title, result.target.multiprocessors);
  if (!result.carried_over.empty()) {
    std::string kept;
    for (const std::string& c : result.carried_over) kept += (kept.empty() ? "" : ",") + c;
    fmt::print("kept {} from the earlier tune in {} (--replace drops them)\n", kept, f.out);
  }
  if (!result.replaced.empty()) fmt::print("{}\n", result.replaced);
  if (!result.nccl_space_searched && !f.no_nccl_space)
    fmt::print("nccl-tuner.conf not written: NCCL's own space is searched by default up to {} GPUs (--nccl-space)\n",
               search::kNcclSpaceAutoRanks);
}

}  // namespace

void add_tune_command(CLI::App& app, const search::WorkShare* share) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App* cmd = app.add_subcommand("tune", "find the fastest algorithm per collective and size band, export MSCCL XML");
  add_topo_flag(*cmd, flags->topo.file, true);
  add_machine_flags(*cmd, flags->topo);
  add_what_if_flags(*cmd, flags->topo);
  add_coll_flag(*cmd, flags->coll, "")->capture_default_str();
  add_size_sweep_flags(*cmd, flags->sizes, "1G");
  add_out_flag(*cmd, flags->out, "a folder: algorithms/, selection tables, plots/, report.json, DEPLOY.md")->capture_default_str();
  cmd->add_option("--jobs", flags->jobs, "worker threads (0: all cores)")->check(CLI::Range(0, kMaxJobs))->capture_default_str();
  add_min_gain_flag(*cmd, flags->min_gain, "NCCL stays unless the best candidate beats it")->check(finite_range(0, kMaxMinGain));
  add_datatype_flag(*cmd, flags->dtype, "decides which sizes split into whole chunks");
  add_op_flag(*cmd, flags->reduction,
              "checked; the exported files serve every op, which the runtime picks per call, and the model's time is the same");
  add_root_flag(*cmd, flags->reduction, "exported files have no root and run from 0: only 0 is accepted when tuning rooted collectives");
  add_profile_flag(*cmd, flags->profile);
  add_run_condition_flags(*cmd, flags->conditions);
  cmd->add_flag("--resume", flags->resume, "continue a killed run from DIR/checkpoint.jsonl");
  cmd->add_flag("--all-candidates", flags->all_candidates,
                "also write every candidate that passed the checker to DIR/candidates/ (for ccforge validate --all-sizes)");
  cmd->add_flag("--no-prune", flags->no_prune, "simulate every candidate at every size (slower; same winners, for checking)");
  cmd->add_flag("--list", flags->list, "print the generator registry and exit");
  add_runtime_flag(*cmd, flags->runtime, "default: rccl for AMD GPUs, msccl-nccl otherwise");
  cmd->add_flag("--export-rooted", flags->export_rooted,
                "also export broadcast/reduce/gather/scatter winners (root 0 only) to DIR/algorithms-rooted/");
  auto* space = cmd->add_flag("--nccl-space", flags->nccl_space,
                              "also search NCCL's own space and write nccl-tuner.conf (default: up to " +
                                  std::to_string(search::kNcclSpaceAutoRanks) + " GPUs; hours on 128, see README)");
  cmd->add_flag("--no-nccl-space", flags->no_nccl_space, "skip that search")->excludes(space);
  cmd->add_flag("--replace", flags->replace,
                "drop collectives an earlier tune in DIR had and this one does not tune (default: keep them)");
  cmd->callback([flags, share] { run_tune(*flags, share); });
}

}  // namespace ccforge::cli
