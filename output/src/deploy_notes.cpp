#include "deploy_notes.hpp"

#include <fmt/core.h>

#include "ccforge/common/quoting.hpp"
#include "ccforge/ir/runtime.hpp"

namespace ccforge::output {

namespace {

std::string band_range(const TuneBand& b) { return format_size(b.min_bytes) + " - " + format_size(b.max_bytes); }

std::string file_or(const std::string& file, const char* otherwise) { return file.empty() ? otherwise : fmt::format("`{}`", file); }

// One row per band: what an in-place and an out-of-place call of that size runs.
std::string band_table(const TuneReport& report) {
  std::string md = "| collective | sizes (nccl-tests) | in-place calls | out-of-place calls | note |\n|---|---|---|---|---|\n";
  for (const CollectiveReport& ct : report.collectives)
    for (const TuneBand& b : ct.bands) {
      // Alltoall winners are out-of-place files already; every other winner is in-place plus its variant.
      const bool outofplace_only = b.winner >= 0 && !ct.candidates[static_cast<std::size_t>(b.winner)].algorithm->inplace;
      const std::string in = outofplace_only ? "NCCL" : file_or(b.file, "NCCL");
      const std::string out = file_or(outofplace_only ? b.file : b.outofplace_file, "NCCL");
      md += fmt::format("| {} | {} | {} | {} | {} |\n", ir::to_string(ct.collective), band_range(b), in, out, b.note);
    }
  return md;
}

std::string environment_lines(const ir::RuntimeTarget& runtime) {
  std::string lines = "- `MSCCL_ALGO_DIR=<this directory>/algorithms`\n";
  for (const auto& [name, value] : runtime.environment) lines += fmt::format("- `{}={}`\n", name, value);
  return lines;
}

}  // namespace

std::string deploy_md(const TuneReport& report, const std::vector<std::string>& carried) {
  const ir::RuntimeTarget& runtime = ir::runtime_target(report.runtime);
  std::string md = fmt::format("# Deploying this tune: {} on {}\n\n", markdown_text(report.topology), runtime.title);
  if (!report.transport.empty()) {
    md += fmt::format("Across nodes NCCL runs over {}: its baseline here, and so every band below, assumes that "
                      "transport and the NCCL variables its plugin sets (`ccforge topo show` lists them).\n\n",
                      report.transport);
  }
  md += fmt::format(
      "Every file under `algorithms/` passed `ccforge ir check --runtime {}` with all threadblocks resident on "
      "{} SMs/CUs: the runtime loads every file in `MSCCL_ALGO_DIR` when a communicator is created, and one "
      "file it rejects makes `ncclCommInitRank` fail for the whole job. Keep nothing else in that directory.\n\n",
      runtime.name, report.multiprocessors);
  md += "## Environment (`source env.sh`)\n\n" + environment_lines(runtime) + "\n";
  md += fmt::format("Process layout: {}.\n\n", runtime.process_rule);
  md += fmt::format(
      "## What runs where\n\n"
      "The runtime's scheduler takes the first file (in path order) whose collective, rank count ({}), size band, "
      "placement (in-place or out-of-place) and `count x sizeMultiplier % nchunksperloop == 0` match the call; "
      "anything else runs NCCL. Sizes below are nccl-tests sizes; the files' `minBytes`/`maxBytes` are the "
      "runtime's `nBytes` of the same calls. Calls with `ncclAvg` or a user-defined reduction always run NCCL, and "
      "inside `ncclGroupStart/End` a group runs MSCCL only when every call in it can.\n\n",
      report.ranks);
  md += band_table(report) + "\n";
  if (!carried.empty()) {
    std::string names;
    for (const std::string& c : carried) names += (names.empty() ? "" : ", ") + markdown_text(c);
    md += fmt::format("Kept from the earlier tune in this directory (same machine and runtime): {}; their bands are in "
                      "`bands.csv` and `selection.md`.\n\n", names);
  }
  md += "## Rooted collectives\n\n"
        "MSCCL XML has no root and neither runtime's scheduler compares the call's root, so a broadcast or reduce "
        "file (always written for root 0) would silently serve every root. They are tuned and reported but not "
        "put in `algorithms/`. ";
  md += report.request.export_rooted
            ? "This tune ran with `--export-rooted`: their files are in `algorithms-rooted/`; copy them into "
              "`algorithms/` only for a job in which every call of that collective uses root 0.\n\n"
            : "`ccforge tune --export-rooted` writes them to `algorithms-rooted/` for jobs in which every call uses "
              "root 0.\n\n";
  if (!ir::schedules(runtime, ir::Collective::Gather))
    md += fmt::format("{} has no gather or scatter entry point that runs MSCCL files, so none are exported for it.\n\n",
                      runtime.title);
  if (runtime.runtime == ir::Runtime::MscclNccl)
    md += "## With Azure's msccl-scheduler\n\n"
          "When `libmsccl-scheduler.so` is found (`MSCCL_SCHEDULER` or the library path) it replaces the internal "
          "scheduler: it reads the directory unsorted and tests `count % nchunksperloop` without the size "
          "multiplier, so some allgather/reducescatter/alltoall sizes in a band may run NCCL. The bands here are "
          "disjoint, so the file order does not matter.\n\n";
  if (report.nccl_space_searched) md += fmt::format("\n{}\n", nccl_tuner_deploy_notes());
  md += fmt::format("## Checking a file by hand\n\n"
                    "`ccforge ir check --runtime {} --gpu MODEL FILE` proves a file and applies the runtime's load and "
                    "run rules; `ccforge validate --tuned <this directory>` runs every file on real buffers.\n",
                    runtime.name);
  return md;
}

// Sourced by bash (BASH_SOURCE). The topology's name appears only in a comment, printable, so that it
// cannot end the comment's line; values are single-quoted.
std::string env_sh(const TuneReport& report) {
  const ir::RuntimeTarget& runtime = ir::runtime_target(report.runtime);
  std::string sh = fmt::format(
      "# shellcheck shell=bash\n"
      "# The environment {} needs to load and use this tune's MSCCL files ({}); generated by ccforge tune.\n"
      "# Usage: source env.sh   (in every process of the job, before the communicator is created)\n"
      "# Process layout: {}.\n",
      runtime.title, printable(report.topology), runtime.process_rule);
  sh += "ccforge_tune_dir=\"$(cd \"$(dirname \"${BASH_SOURCE[0]:-$0}\")\" && pwd)\"\n";
  sh += "export MSCCL_ALGO_DIR=\"$ccforge_tune_dir/algorithms\"\n";
  for (const auto& [name, value] : runtime.environment) sh += fmt::format("export {}={}\n", name, shell_quoted(value));
  return sh + "unset ccforge_tune_dir\n";
}

std::string nccl_tuner_deploy_notes() {
  return R"(## Stock NCCL (2.19 or later): the tuner plugin

No NCCL replacement is needed: NCCL loads a tuner plugin that may override its algorithm, protocol and
channel count per call. `ccforge tune` writes `nccl-tuner.conf` next to the MSCCL files: the size bands
where a point of NCCL's own space (ring, tree, NVLS, NVLS-tree, PAT x LL, LL128, Simple x channels) is
predicted to beat NCCL's default choice by at least `--min-gain` (predicted gains per band in
`selection.md` and `report.json`). Every other call keeps NCCL's choice.

    export NCCL_TUNER_PLUGIN=/path/to/libnccl-tuner-ccforge.so
    export CCFORGE_NCCL_TUNER_CONF=/path/to/tune-dir/nccl-tuner.conf   # default: next to the library

The table's rules are for the tuned node count and ranks per node; a communicator of another shape (a
sub-communicator, another job size) keeps NCCL's choices. With `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING`
NCCL logs `Successfully loaded external tuner plugin` and the plugin logs `ccforge tuner: initialised from
...` with the number of rules that apply; a missing or malformed table is one `WARN` line and no override.
)";
}

}  // namespace ccforge::output
