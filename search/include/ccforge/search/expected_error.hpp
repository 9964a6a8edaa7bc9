// How far the model's predicted speedup over NCCL has been off where it could be measured: per algorithm
// family (the generator, per collective) x protocol x size range, from the published ND H100 v5 MSCCL
// and NCCL times (search/src/tune/measured_errors.cpp says which rows and files; the tests' tool
// measured_error_table regenerates it). A tune keeps NCCL unless a winner's predicted gain survives its
// expected error.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"

namespace ccforge::search {

// nccl-tests sizes, inclusive: the latency-bound calls, the middle where the tuner's choice matters
// most (issue 15: 512 KB-64 MB), and the bandwidth-bound calls.
struct SizeRange {
  ByteCount lo = 0, hi = 0;
  bool operator==(const SizeRange&) const = default;
};
inline constexpr SizeRange kErrorSizeRanges[] = {{0, (ByteCount{64} << 10) - 1},
                                                 {ByteCount{64} << 10, (ByteCount{1} << 20) - 1},
                                                 {ByteCount{1} << 20, (ByteCount{16} << 20) - 1},
                                                 {ByteCount{16} << 20, std::numeric_limits<ByteCount>::max()}};

// One cell: the worst |predicted speedup / measured speedup - 1| over the published rows in it.
struct MeasuredError {
  ir::Collective collective = ir::Collective::AllReduce;
  std::string family;  // the generator that builds the measured schedule ("direct", "twoshot", "ring")
  ir::Protocol protocol = ir::Protocol::Simple;
  SizeRange sizes;
  int points = 0;
  double worst_pct = 0.0;
  ByteCount min_measured = 0, max_measured = 0;  // the published sizes the cell rests on
  std::string source;                             // the msccl-scheduler files measured
  bool operator==(const MeasuredError&) const = default;
};
// The measured cells; they hold for the machine they were measured on only.
const std::vector<MeasuredError>& measured_errors();
inline constexpr std::string_view kMeasuredTopology = "ndv5";

// The error a winner's predicted speedup carries. Unmeasured (another machine, family, protocol or size
// range): the worst measured cell's error, so that an unmeasured winner must win by more than any
// measured one was ever off.
struct ExpectedError {
  double pct = 0.0;
  bool measured = false;
  std::string source;  // the cell's files, or why it is unmeasured
};
ExpectedError expected_error(std::string_view topology, ir::Collective collective, std::string_view family,
                             ir::Protocol protocol, ByteCount bytes);

}  // namespace ccforge::search
