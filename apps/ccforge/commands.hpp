// Each verb of the CLI registers itself on the root app; its callback does the work and reports a
// non-zero exit by throwing CLI::RuntimeError(code).
#pragma once

#include <CLI/CLI.hpp>

namespace ccforge::cli {

void add_topo_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_sim_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_ir_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_compare_command(CLI::App& app);

}  // namespace ccforge::cli
