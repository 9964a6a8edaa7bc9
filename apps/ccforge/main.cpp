#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/quoting.hpp"
#include "commands.hpp"
#include "invocation.hpp"
#include "job.hpp"

namespace {

// Exit codes: 0 success, 1 a check found the input wrong (e.g. `ir check`), 2 bad input or flags.
constexpr int kExitBadInput = 2;

// Standard output is buffered: a full disk or a closed pipe shows only when it is flushed, so a run
// that printed must flush before it can report success.
std::string stdout_write_error() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return "";
  return fmt::format("ccforge: cannot write to standard output: {} (free space or send the output elsewhere)",
                     errno != 0 ? std::strerror(errno) : "write error");
}

}  // namespace

int main(int argc, char** argv) {
  // Only tune shares work among the processes of an MPI job; joined before parsing, so that a bad flag
  // is reported once for the job.
  const std::unique_ptr<ccforge::cli::JobSession> job =
      argc > 1 && std::string_view(argv[1]) == "tune" ? ccforge::cli::join_job(argc, argv) : nullptr;
  const ccforge::search::WorkShare* share = job ? &job->share() : nullptr;
  // One line on stderr and the exit code; in a job of several processes that line ends all of them.
  // Control characters an input put into it (a name, a path, a value) are escaped: one line, no
  // terminal escape sequences.
  const auto fail = [&](const std::string& message, int code) {
    const std::string line = ccforge::printable(message);
    if (share && share->size() > 1) job->fail(line, code);
    fmt::print(stderr, "{}\n", line);
    return code;
  };
  ccforge::cli::record_invocation(argc, argv);
  CLI::App app{"ccforge: find, prove and ship the fastest collective-communication algorithms for a GPU cluster"};
  app.require_subcommand(1);
  // Lower case like every other description; verbs inherit the help flag's.
  app.set_help_flag("-h,--help", "print this help message and exit");
  app.set_version_flag("--version", std::string("ccforge ") + CCFORGE_VERSION, "print the version and exit");
  ccforge::cli::add_topo_command(app);
  ccforge::cli::add_tune_command(app, share);
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
    if (const std::string error = stdout_write_error(); !error.empty()) return fail(error, kExitBadInput);
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // CLI11 checks required subcommands before it reports leftovers; name the leftover, it is the cause.
    const auto leftovers = app.remaining(true);
    if (!leftovers.empty()) return fail(fmt::format("ccforge: unrecognised argument '{}' (see --help)", leftovers.front()), kExitBadInput);
    return fail(fmt::format("ccforge: {} (see --help)", e.what()), kExitBadInput);
  } catch (const ccforge::DiagError& e) {
    return fail(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    // fmt::print throws when a write to a full stdout fails: that is the cause, not a bug.
    if (const std::string error = stdout_write_error(); !error.empty()) return fail(error, kExitBadInput);
    return fail(fmt::format("ccforge: internal error: {}", e.what()), 3);
  }
  if (const std::string error = stdout_write_error(); !error.empty()) return fail(error, kExitBadInput);
  return 0;
}
