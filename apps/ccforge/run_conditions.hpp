// The flags that describe how the measured (or to be measured) run was made, shared by sim, tune,
// calibrate and validate: nccl-tests' -t/-g launch mode, --env NAME=VALUE in NCCL's own syntax, and
// --nccl-version.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ccforge/sim/sim.hpp"

namespace ccforge::cli {

struct RunConditionFlags {
  int threads = 1;
  int gpus_per_thread = 1;
  std::vector<std::string> env;
  std::string nccl_version;
};

void add_run_condition_flags(CLI::App& cmd, RunConditionFlags& flags);

// Sets params' launch mode, NCCL settings and version. On stderr, one line each: variables given with
// --env that ccforge does not know or does not model, and NCCL_* variables in ccforge's own environment
// that are not applied (only --env is).
void apply_run_conditions(const RunConditionFlags& flags, sim::SimParams& params);

// nccl-tests runs processes x threads x GPUs ranks: -t x -g GPUs per process must divide the
// topology's `num_gpus`. Throws DiagError naming -t, -g and the count otherwise.
void check_launch_fits(const RunConditionFlags& flags, int num_gpus);

}  // namespace ccforge::cli
