// `ccforge compare A B`: two tables of times per collective and size (tune or validate output folders,
// or `ccforge sim --format csv` files), the change at every size both hold, the size bands whose winner
// moved, and whether anything got slower than a threshold (so CI can guard a cluster's tuning).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ccforge/common/units.hpp"

namespace ccforge::validate {

// One size of one collective: the time of what runs there and what that is.
struct TimedPoint {
  std::string collective;  // "allreduce"; empty in a sim CSV, which holds one collective and does not name it
  ByteCount size_bytes = 0;
  double time_us = 0;
  std::string winner;  // the algorithm; NCCL's kept choice as "NCCL nvlstree/Simple" where the table names it
};

enum class TableKind { Selection, SimCsv };

struct TimedTable {
  std::string source;  // the path as given
  TableKind kind = TableKind::Selection;
  std::vector<TimedPoint> points;
  // The machine a tune folder's report.json names, without a what-if's " (fail ...)"; empty if unknown.
  std::string machine;
  // A sim CSV's busbw / algbw: NCCL's bus factor, which the collective and the rank count set (e.g.
  // 2(n-1)/n for allreduce), so two CSVs that differ in it are of different collectives or machines.
  std::optional<double> bus_factor;
};

// A tune or validate output folder (its selection.csv: the time is best_us, what runs after deploying),
// or a selection.csv itself, or a `ccforge sim --format csv` file (time_us and algorithm; lines starting
// with '#' are skipped). Malformed input, and a time that is not finite and > 0, is a DiagError
// "FILE:LINE: problem (fix)".
TimedTable read_timed_table(const std::filesystem::path& path);
// A sim CSV's text; `file` names it in errors.
TimedTable parse_sim_csv(const std::string& text, const std::string& file);
// selection.csv's text (output/selection_table.hpp's format).
TimedTable parse_selection_csv(const std::string& text, const std::string& file);

struct PointChange {
  std::string collective;
  ByteCount size_bytes = 0;
  double before_us = 0, after_us = 0;
  std::string before_winner, after_winner;
  double change_pct() const { return before_us > 0 ? 100.0 * (after_us - before_us) / before_us : 0.0; }
};

// A run of consecutive compared sizes of one collective whose winner changed the same way.
struct WinnerMove {
  std::string collective;
  ByteCount min_bytes = 0, max_bytes = 0;
  std::string before, after;
};

struct Comparison {
  std::vector<PointChange> points;  // every collective x size both tables hold, in the first table's order
  std::vector<WinnerMove> moved;
  std::vector<TimedPoint> only_before, only_after;  // sizes one table has and the other not

  // The points more than `threshold_pct` slower after than before.
  std::vector<PointChange> slower_than(double threshold_pct) const;
};

// Compares `before` with `after`. Tables of different kinds or bus factors, or with no collective x size
// in common, are a DiagError: there would be nothing to compare. So are tune folders of different
// machines unless `across_machines` (a user comparing, say, an imported node with a bundled one says so).
Comparison compare_tables(const TimedTable& before, const TimedTable& after, bool across_machines = false);

}  // namespace ccforge::validate
