// Every chunk of every rank's memory as one dense index, after in-place aliasing, so the race and
// postcondition phases can keep per-chunk state in flat vectors.
#pragma once

#include <vector>

#include "aliasing.hpp"
#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

class BufferSpace {
 public:
  BufferSpace(const Algorithm& algo, bool inplace);

  int size() const { return total_; }
  int ranks() const { return static_cast<int>(base_.size()); }
  // A rank's chunks are the dense indices [first(rank), first(rank) + chunks(rank)).
  int first(int rank) const { return base_[static_cast<std::size_t>(rank)]; }
  int chunks(int rank) const;
  const LogicalCounts& counts(int rank) const { return counts_[static_cast<std::size_t>(rank)]; }
  // Dense index of the memory that (buf, index) names on `rank`, or -1 when aliasing puts it outside
  // the rank's declared buffers.
  int locate(int rank, BufferKind buf, int index) const;
  int logical_input(int rank, int k) const { return locate(rank, BufferKind::Input, k); }
  int logical_output(int rank, int k) const { return locate(rank, BufferKind::Output, k); }

 private:
  const Algorithm& algo_;
  Aliasing aliasing_;
  std::vector<LogicalCounts> counts_;
  std::vector<int> base_;  // per rank: first index of its input buffer; output and scratch follow
  int total_ = 0;
};

}  // namespace ccforge::ir
