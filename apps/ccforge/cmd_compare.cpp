// `ccforge compare A B [--threshold PCT]`: flags and printing only; validate's compare module does the work.
// Exit 1 when a size got slower than the threshold, so CI can guard a cluster's tuning.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "ccforge/common/units.hpp"
#include "ccforge/validate/compare.hpp"
#include "commands.hpp"
#include "topo_input.hpp"

namespace ccforge::cli {
namespace {

constexpr int kExitSlower = 1;
// A bound on --threshold: a slowdown tested against more than 10x is no guard.
constexpr double kMaxThresholdPct = 1000;

struct CompareFlags {
  std::string before, after;
  double threshold_pct = 3.0;
  bool across_machines = false;
};

std::string point_name(const std::string& collective, ByteCount bytes) {
  return collective.empty() ? format_size(bytes) : fmt::format("{} {}", collective, format_size(bytes));
}

void print_comparison(const CompareFlags& f, const validate::Comparison& c) {
  fmt::print("# {} -> {}: time per size (us), change, winner; slower than {:g} % is marked\n", f.before, f.after, f.threshold_pct);
  fmt::print("{:<14} {:>8} {:>12} {:>12} {:>9}  {}\n", "collective", "size", "before_us", "after_us", "change", "winner");
  for (const validate::PointChange& p : c.points) {
    const std::string winner = p.before_winner == p.after_winner ? p.after_winner : p.before_winner + " -> " + p.after_winner;
    fmt::print("{:<14} {:>8} {:>12.3f} {:>12.3f} {:>+8.2f}%  {}{}\n", p.collective.empty() ? "-" : p.collective, format_size(p.size_bytes),
               p.before_us, p.after_us, p.change_pct(), winner, p.change_pct() > f.threshold_pct ? "  SLOWER" : "");
  }
  fmt::print("# winner moved in {} band(s)\n", c.moved.size());
  for (const validate::WinnerMove& m : c.moved)
    fmt::print("  {}..{}: {} -> {}\n", point_name(m.collective, m.min_bytes), format_size(m.max_bytes), m.before, m.after);
  for (const auto& p : c.only_before) fmt::print("# only in {}: {}\n", f.before, point_name(p.collective, p.size_bytes));
  for (const auto& p : c.only_after) fmt::print("# only in {}: {}\n", f.after, point_name(p.collective, p.size_bytes));
}

void run_compare(const CompareFlags& f) {
  const validate::Comparison c =
      validate::compare_tables(validate::read_timed_table(f.before), validate::read_timed_table(f.after), f.across_machines);
  print_comparison(f, c);
  const auto slower = c.slower_than(f.threshold_pct);
  if (slower.empty()) {
    fmt::print("# ok: none of {} sizes got slower than {:g} %\n", c.points.size(), f.threshold_pct);
    return;
  }
  const auto worst = std::max_element(slower.begin(), slower.end(),
                                      [](const auto& a, const auto& b) { return a.change_pct() < b.change_pct(); });
  fmt::print("# SLOWER: {} of {} sizes by more than {:g} % (worst {}, {:+.2f} %)\n", slower.size(), c.points.size(), f.threshold_pct,
             point_name(worst->collective, worst->size_bytes), worst->change_pct());
  throw CLI::RuntimeError(kExitSlower);
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "compare two tune or validate output folders, or two sim CSVs: change per size, winners that moved; exit 1 if slower");
  cmd->add_option("before", flags->before, "the earlier table: tune/validate output folder, selection.csv or sim --format csv file")->required();
  cmd->add_option("after", flags->after, "the later table, of the same kind")->required();
  cmd->add_option("--threshold", flags->threshold_pct, "exit 1 when a size got slower by more than this many percent")
      ->check(finite_range(0, kMaxThresholdPct))
      ->capture_default_str();
  cmd->add_flag("--across-machines", flags->across_machines,
                "compare tune folders of two different machines (e.g. an imported node with a bundled one)");
  cmd->callback([flags] { run_compare(*flags); });
}

}  // namespace ccforge::cli
