// `ccforge compare`'s logic: match two tables by collective and size, the change per size, and the runs
// of sizes whose winner moved.
#include "ccforge/validate/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/core.h>

#include "ccforge/common/diag.hpp"

namespace ccforge::validate {
namespace {

const char* kind_name(TableKind kind) { return kind == TableKind::Selection ? "a selection table (tune or validate output)" : "a sim CSV"; }

// Consecutive sizes of one collective whose winner changed from the same one to the same other join one band.
std::vector<WinnerMove> winner_moves(const std::vector<PointChange>& points) {
  std::vector<WinnerMove> moved;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PointChange& p = points[i];
    if (p.before_winner == p.after_winner) continue;
    const bool extends = i > 0 && !moved.empty() && points[i - 1].collective == p.collective && moved.back().collective == p.collective &&
                         moved.back().max_bytes == points[i - 1].size_bytes && moved.back().before == p.before_winner &&
                         moved.back().after == p.after_winner;
    if (extends) {
      moved.back().max_bytes = p.size_bytes;
    } else {
      moved.push_back(WinnerMove{p.collective, p.size_bytes, p.size_bytes, p.before_winner, p.after_winner});
    }
  }
  return moved;
}

}  // namespace

std::vector<PointChange> Comparison::slower_than(double threshold_pct) const {
  std::vector<PointChange> slower;
  for (const PointChange& p : points)
    if (p.change_pct() > threshold_pct) slower.push_back(p);
  return slower;
}

Comparison compare_tables(const TimedTable& before, const TimedTable& after, bool across_machines) {
  if (before.kind != after.kind)
    fail_at(after.source, 0, fmt::format("is {} but {} is {}", kind_name(after.kind), before.source, kind_name(before.kind)),
            "compare two of the same kind");
  if (!across_machines && !before.machine.empty() && !after.machine.empty() && before.machine != after.machine)
    fail_at(after.source, 0, fmt::format("was tuned for {} but {} for {}", after.machine, before.source, before.machine),
            "compare two runs of one machine (a what-if of it, with --fail or --degrade, counts as the same), or "
            "say --across-machines");
  // The factors are printed to 0.001 Gb/s; 1 % apart is far beyond that rounding for any row ccforge writes.
  if (before.bus_factor && after.bus_factor && std::abs(*before.bus_factor - *after.bus_factor) > 0.01 * *before.bus_factor)
    fail_at(after.source, 0,
            fmt::format("has busbw/algbw {:.3f} but {} has {:.3f}: a different collective or number of GPUs", *after.bus_factor,
                        before.source, *before.bus_factor),
            "compare two sim CSVs of one collective on one machine");
  std::map<std::pair<std::string, ByteCount>, const TimedPoint*> later;
  for (const TimedPoint& p : after.points) later[{p.collective, p.size_bytes}] = &p;
  Comparison c;
  std::map<std::string, std::size_t> collective_order;  // the first table's order of collectives
  for (const TimedPoint& p : before.points) {
    collective_order.emplace(p.collective, collective_order.size());
    const auto it = later.find({p.collective, p.size_bytes});
    if (it == later.end()) {
      c.only_before.push_back(p);
      continue;
    }
    c.points.push_back(PointChange{p.collective, p.size_bytes, p.time_us, it->second->time_us, p.winner, it->second->winner});
    later.erase(it);
  }
  for (const TimedPoint& p : after.points)
    if (later.count({p.collective, p.size_bytes})) c.only_after.push_back(p);
  if (c.points.empty())
    fail_at(after.source, 0, fmt::format("has no collective and size in common with {}", before.source),
            "compare tables of the same collectives and sizes");
  std::stable_sort(c.points.begin(), c.points.end(), [&](const PointChange& a, const PointChange& b) {
    return std::pair(collective_order[a.collective], a.size_bytes) < std::pair(collective_order[b.collective], b.size_bytes);
  });
  c.moved = winner_moves(c.points);
  return c;
}

}  // namespace ccforge::validate
