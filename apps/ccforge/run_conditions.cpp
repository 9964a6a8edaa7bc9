#include "run_conditions.hpp"

#include "ccforge/common/diag.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

extern char** environ;

namespace ccforge::cli {
namespace {

std::string env_name(std::string_view assignment) { return std::string(assignment.substr(0, assignment.find('='))); }

// NCCL_* variables of this process that --env does not repeat (NCCL_TOPO_FILE is read as --topo's default).
std::vector<std::string> unapplied_environment(const std::vector<std::string>& given) {
  std::vector<std::string> names;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string name = env_name(*e);
    if (!name.starts_with("NCCL_") || name == "NCCL_TOPO_FILE") continue;
    const bool repeated = std::any_of(given.begin(), given.end(), [&](const std::string& g) { return env_name(g) == name; });
    if (!repeated) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

void add_run_condition_flags(CLI::App& cmd, RunConditionFlags& f) {
  cmd.add_option("-t,--nthreads", f.threads, "nccl-tests -t: threads per process")->check(CLI::Range(1, 1024))->capture_default_str();
  cmd.add_option("-g,--ngpus", f.gpus_per_thread,
                 "nccl-tests -g: GPUs each thread drives (1: one process per GPU, as under mpirun; logs print nGpus)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd.add_option("--env", f.env,
                 "NCCL variable of the run, NAME=VALUE in NCCL's syntax (repeatable): NCCL_ALGO, NCCL_PROTO, "
                 "NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_NVLS_ENABLE, "
                 "NCCL_PAT_ENABLE, NCCL_IB_QPS_PER_CONNECTION, NCCL_NET_GDR_LEVEL, NCCL_COLLNET_ENABLE");
  cmd.add_option("--nccl-version", f.nccl_version, "NCCL version whose choices to reproduce, e.g. 2.26.2 (default 2.18)");
}

void apply_run_conditions(const RunConditionFlags& f, sim::SimParams& params) {
  params.launch = sim::LaunchMode{f.threads, f.gpus_per_thread};
  std::vector<std::string> unknown, unmodelled;
  for (const std::string& assignment : f.env) {
    switch (sim::apply_nccl_env(assignment, params.nccl, "--env")) {
      case sim::EnvUse::Modelled:
        break;
      case sim::EnvUse::NotModelled:
        unmodelled.push_back(env_name(assignment));
        break;
      case sim::EnvUse::Unknown:
        unknown.push_back(env_name(assignment));
        break;
    }
  }
  if (!f.nccl_version.empty()) sim::set_nccl_version(params, sim::parse_nccl_version(f.nccl_version, "--nccl-version"));
  if (!unknown.empty())
    fmt::print(stderr, "ccforge: warning: --env {} unknown to ccforge, ignored\n", fmt::join(unknown, ", "));
  if (!unmodelled.empty())
    fmt::print(stderr, "ccforge: note: --env {} accepted but not modelled (no effect on simulated times)\n", fmt::join(unmodelled, ", "));
  if (const auto names = unapplied_environment(f.env); !names.empty())
    fmt::print(stderr, "ccforge: note: {} in this environment not applied; pass the run's settings as --env NAME=VALUE\n",
               fmt::join(names, ", "));
}

void check_launch_fits(const RunConditionFlags& f, int num_gpus) {
  const long per_process = static_cast<long>(f.threads) * f.gpus_per_thread;
  if (num_gpus % per_process != 0)
    fail_at("-g", 0,
            fmt::format("-t {} -g {} drives {} GPUs per process, but the topology has {}", f.threads, f.gpus_per_thread, per_process,
                        num_gpus),
            fmt::format("give -t and -g whose product divides {}; -g 1 is one process per GPU", num_gpus));
}

}  // namespace ccforge::cli
