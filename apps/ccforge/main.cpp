#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "ccforge/common/diag.hpp"
#include "commands.hpp"
#include "invocation.hpp"

namespace {

// Exit codes: 0 success, 1 a check found the input wrong (e.g. `ir check`), 2 bad input or flags.
constexpr int kExitBadInput = 2;

}  // namespace

int main(int argc, char** argv) {
  ccforge::cli::record_invocation(argc, argv);
  CLI::App app{"ccforge: find, prove and ship the fastest collective-communication algorithms for a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ccforge ") + CCFORGE_VERSION);
  ccforge::cli::add_topo_command(app);
  ccforge::cli::add_tune_command(app);
  ccforge::cli::add_sim_command(app);
  ccforge::cli::add_validate_command(app);
  ccforge::cli::add_ir_command(app);
  ccforge::cli::add_calibrate_command(app);
  ccforge::cli::add_compare_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // CLI11 checks required subcommands before it reports leftovers; name the leftover, it is the cause.
    const auto leftovers = app.remaining(true);
    if (!leftovers.empty()) {
      fmt::print(stderr, "ccforge: unrecognised argument '{}' (see --help)\n", leftovers.front());
    } else {
      fmt::print(stderr, "ccforge: {} (see --help)\n", e.what());
    }
    return kExitBadInput;
  } catch (const ccforge::DiagError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccforge: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
