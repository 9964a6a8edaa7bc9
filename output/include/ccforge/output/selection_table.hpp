// The selection table (selection.csv and the tables of selection.md) as typed rows, written and read in
// one place: `ccforge tune` writes the simulated table, `ccforge validate` the measured one in the same
// format, and both read it back (the CLI's summary, validate's tuned bounds, a re-tune's carry-over).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/nccl_algo.hpp"

namespace ccforge::output {

// What NCCL runs at a size: algorithm, protocol and channels (0: not known, as in selection.md).
struct NcclBaseline {
  ir::NcclAlgo algo = ir::NcclAlgo::Ring;
  ir::Protocol proto = ir::Protocol::Simple;
  int nchannels = 0;
  bool operator==(const NcclBaseline&) const = default;
};

// One collective at one size (nccl-tests sizes). Empty optionals are empty cells: a measured table has
// no NCCL choice or expected error, a host run no NCCL time, a bound only where one was carried over.
struct SelectionRow {
  ir::Collective collective = ir::Collective::AllReduce;
  ByteCount size_bytes = 0;
  std::optional<double> nccl_us, best_us;
  std::string algorithm = "NCCL";        // the winner, or "NCCL" where NCCL is kept
  std::optional<ir::Protocol> protocol;  // the winner's, or the NCCL baseline's where NCCL is kept
  std::optional<double> lower_bound_us;
  std::optional<NcclBaseline> nccl;  // the baseline NCCL runs there
  // The winner's expected error of its predicted speedup (search/expected_error.hpp); empty for NCCL.
  std::optional<double> expected_error_pct;

  std::optional<double> speedup() const;          // nccl_us / best_us
  std::optional<double> lower_bound_pct() const;  // 100 * lower_bound_us / best_us
  bool operator==(const SelectionRow&) const = default;
};

// selection.csv: a header, then one line per row. Columns:
// collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct,lower_bound_us,
// nccl_algorithm,nccl_channels,expected_error_pct; times to 0.001 us, nccl_algorithm as "nvls/Simple".
std::string selection_csv(const std::vector<SelectionRow>& rows);
// Reads what selection_csv wrote, and the 8-column tables of earlier versions (the later columns empty;
// the bound then from lower_bound_pct). A malformed table is a DiagError at `file`'s line.
std::vector<SelectionRow> read_selection_csv(const std::string& text, const std::string& file);

// The tables of selection.md: a "## collective" section per run of rows of one collective. Times to
// 0.01 us, speedup to 0.01, bound and error percentages to 0.1; no channel count.
std::string selection_markdown(const std::vector<SelectionRow>& rows);
// Reads those sections back (other text around them is skipped), to the precision they carry.
std::vector<SelectionRow> read_selection_markdown(const std::string& text, const std::string& file);

}  // namespace ccforge::output
