// `ccforge ir check|normalize|show FILE`: flags and printing only; the ir library does the work.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/output_path.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/topology/topology.hpp"
#include "check_issues.hpp"
#include "commands.hpp"
#include "shared_flags.hpp"

namespace ccforge::cli {
namespace {


struct IrFlags {
  std::string file;
  std::string out;
  std::string format;
  std::string runtime;  // empty: the rules both runtimes share, without their threadblock limits
  std::string gpu;      // GPU model: residency (threadblocks <= SMs/CUs) and, without --runtime, the runtime
};

// --gpu MODEL, checked against the models ccforge knows.
const topo::GpuModel* gpu_of(const IrFlags& f) {
  if (f.gpu.empty()) return nullptr;
  const topo::GpuModel* model = topo::find_gpu_model(f.gpu);
  if (!model) throw CLI::ValidationError("--gpu", "unknown GPU model '" + f.gpu + "' (use one of: " + topo::known_gpu_models() + ")");
  return model;
}

// --runtime wins; else the GPU's vendor picks it (AMD: RCCL); nullopt when neither flag was given.
std::optional<ir::Runtime> runtime_of(const IrFlags& f) {
  if (!f.runtime.empty()) {
    const auto r = ir::runtime_from_string(f.runtime);
    if (!r) throw CLI::ValidationError("--runtime", "unknown runtime '" + f.runtime + "' (use one of: " + ir::runtime_names() + ")");
    return r;
  }
  const auto gpu = gpu_of(f);
  if (!gpu) return std::nullopt;
  return ir::runtime_for_vendor(gpu->amd());
}

// The rules --runtime/--gpu ask for, resolved before any file is read.
struct RuntimeRules {
  std::optional<ir::Runtime> runtime;
  int multiprocessors = 0;  // 0: residency not checked
};
RuntimeRules runtime_rules(const IrFlags& f) {
  const auto gpu = gpu_of(f);
  return {runtime_of(f), gpu ? gpu->multiprocessors : 0};
}

// Without a runtime, the rules every runtime shares (depid, offsets, parser nodes) still apply, under
// msccl-executor-nccl's threadblock limit, the larger of the two.
ir::CheckReport check_for(const ir::Algorithm& algo, const RuntimeRules& rules) {
  if (rules.runtime) return ir::check(algo, ir::runtime_target(*rules.runtime), rules.multiprocessors);
  ir::CheckReport report = ir::check(algo);
  ir::check_loadable(algo, ir::runtime_target(ir::Runtime::MscclNccl), rules.multiprocessors, report);
  report.notes.push_back("no --runtime/--gpu: RCCL's 64-threadblock limit, residency and the runtime's collectives were not checked");
  return report;
}

void print_json(const std::string& file, const ir::CheckReport& report) {
  nlohmann::ordered_json j;
  j["file"] = file;
  j["ok"] = report.ok();
  j["issues"] = nlohmann::ordered_json::array();
  for (const ir::CheckIssue& i : report.issues)
    j["issues"].push_back({{"rule", i.rule}, {"rank", i.rank}, {"tb", i.tb}, {"step", i.step}, {"line", i.line}, {"message", i.message}});
  j["notes"] = report.notes;
  fmt::print("{}\n", j.dump(2));
}

void run_check(const IrFlags& f) {
  const RuntimeRules rules = runtime_rules(f);
  const ir::Algorithm algo = ir::read_msccl_xml(f.file);
  const ir::CheckReport report = check_for(algo, rules);
  if (f.format == "json") {
    print_json(f.file, report);
  } else {
    for (const ir::CheckIssue& i : report.issues) fmt::print("{} {}\n", issue_location(f.file, i), i.message);
    for (const std::string& note : report.notes) fmt::print("{}: note: {}\n", f.file, note);
    const ir::AlgorithmStats stats = ir::compute_stats(algo);
    std::string runtime;
    if (rules.runtime) runtime = fmt::format("; {} loads and runs it", ir::runtime_target(*rules.runtime).title);
    if (rules.multiprocessors > 0) runtime += fmt::format(" with all threadblocks resident on {} SMs/CUs", rules.multiprocessors);
    if (report.ok())
      fmt::print("{}: ok: {} {} on {} ranks, {} steps; structure, limits, deadlock freedom, race freedom and postcondition hold{}\n",
                 f.file, ir::to_string(algo.collective), ir::to_string(algo.protocol), algo.ngpus, stats.total_steps, runtime);
    else
      fmt::print("{}: {} problem(s)\n", f.file, report.issues.size());
  }
  if (!report.ok()) throw CLI::RuntimeError(kExitCheckFailed);
}

void run_normalize(const IrFlags& f) {
  if (!f.out.empty()) check_output_path(f.out, OutputKind::File, "--out");
  const ir::Algorithm algo = ir::read_msccl_xml(f.file);
  if (f.out.empty()) fmt::print("{}", ir::to_msccl_xml(algo));
  else ir::write_msccl_xml(algo, f.out);
}

void run_show(const IrFlags& f) {
  const ir::Algorithm algo = ir::read_msccl_xml(f.file);
  const ir::AlgorithmStats s = ir::compute_stats(algo);
  fmt::print("{}: {} \"{}\" proto {} ngpus {} nchannels {} nchunksperloop {} inplace {} outofplace {} bytes [{}, {}]\n", f.file,
             ir::to_string(algo.collective), algo.name, ir::to_string(algo.protocol), algo.ngpus, algo.nchannels,
             algo.nchunksperloop, algo.inplace ? 1 : 0, algo.outofplace ? 1 : 0, algo.min_bytes,
             algo.max_bytes == 0 ? std::string("unbounded") : std::to_string(algo.max_bytes));
  fmt::print("steps {} (max {} per tb), critical path {} steps\n", s.total_steps, s.max_steps_per_tb, s.critical_path_steps);
  fmt::print("{:>6} {:>5} {:>6} {:>5} {:>8} {:>8} {:>8}\n", "rank", "tbs", "steps", "nops", "i_chunks", "o_chunks", "s_chunks");
  for (std::size_t r = 0; r < s.per_rank.size(); ++r)
    fmt::print("{:>6} {:>5} {:>6} {:>5} {:>8} {:>8} {:>8}\n", r, s.per_rank[r].tbs, s.per_rank[r].steps, s.per_rank[r].nops,
               algo.gpus[r].input_chunks, algo.gpus[r].output_chunks, algo.gpus[r].scratch_chunks);
  const std::size_t n = s.per_rank.size();
  fmt::print("chunks sent per loop (row: from rank, column: to rank; one chunk = 1/{} of the buffer)\n      ", algo.nchunksperloop);
  for (std::size_t j = 0; j < n; ++j) fmt::print("{:>6}", j);
  fmt::print("\n");
  for (std::size_t i = 0; i < n; ++i) {
    fmt::print("{:>6}", i);
    for (std::size_t j = 0; j < n; ++j) fmt::print("{:>6}", i == j ? std::string("-") : std::to_string(s.chunks_sent[i * n + j]));
    fmt::print("\n");
  }
}

}  // namespace

void add_ir_command(CLI::App& app) {
  CLI::App* ir_cmd = app.add_subcommand("ir", "import, check, normalise and summarise MSCCL XML algorithms");
  ir_cmd->require_subcommand(1);

  auto flags = std::make_shared<IrFlags>();
  CLI::App* check = ir_cmd->add_subcommand("check", "prove structure, limits, deadlock/race freedom and the postcondition; exit 1 on failure");
  check->add_option("file", flags->file, "MSCCL XML algorithm")->required();
  add_format_flag(*check, flags->format, {"text", "json"});
  add_runtime_flag(*check, flags->runtime, "also apply its load and run rules; default: from --gpu's vendor");
  check->add_option("--gpu", flags->gpu, "GPU model the file runs on (e.g. \"H100 SXM\", MI300X): all of a rank's "
                                              "threadblocks must fit on its SMs/CUs at once");
  check->callback([flags] { run_check(*flags); });

  CLI::App* normalize = ir_cmd->add_subcommand("normalize", "re-export in ccforge's canonical MSCCL XML form (idempotent)");
  normalize->add_option("file", flags->file, "MSCCL XML algorithm")->required();
  add_out_flag(*normalize, flags->out, "the file, written atomically; default: stdout");
  normalize->callback([flags] { run_normalize(*flags); });

  CLI::App* show = ir_cmd->add_subcommand("show", "per-rank tb/step counts, chunks sent per peer, critical path");
  show->add_option("file", flags->file, "MSCCL XML algorithm")->required();
  show->callback([flags] { run_show(*flags); });
}

}  // namespace ccforge::cli
