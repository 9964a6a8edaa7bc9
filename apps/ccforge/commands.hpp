// Each verb of the CLI registers itself on the root app; its callback does the work and reports a
// non-zero exit by throwing CLI::RuntimeError(code).
#pragma once

#include <CLI/CLI.hpp>

#include "ccforge/search/work_share.hpp"

namespace ccforge::cli {

void add_topo_command(CLI::App& app);
// `share`: the MPI job's processes the tune divides its work among (job.hpp); nullptr: this one alone.
void add_tune_command(CLI::App& app, const search::WorkShare* share);
void add_sim_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_ir_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_compare_command(CLI::App& app);

}  // namespace ccforge::cli
