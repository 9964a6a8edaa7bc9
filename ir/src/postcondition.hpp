// What each collective must leave in each output chunk, as multisets of (rank, input chunk)
// contributions. MSCCL XML has no root attribute: broadcast, reduce, gather and scatter are checked
// with root 0, the convention of msccl-tools' collectives and of ccforge's builder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "buffer_space.hpp"

namespace ccforge::ir {

using Term = std::uint64_t;  // rank * stride + logical input chunk

struct Expectation {
  int rank;
  int output_chunk;
  std::vector<Term> terms;  // sorted
};

struct ExpectedOutputs {
  std::vector<Expectation> chunks;
  std::optional<std::string> shape_problem;  // chunk counts that do not fit the collective
  std::optional<std::string> skipped;        // collectives without a postcondition
};

class TermCodec {
 public:
  explicit TermCodec(const BufferSpace& space, int ngpus);
  Term encode(int rank, int chunk) const { return static_cast<Term>(rank) * static_cast<Term>(stride_) + static_cast<Term>(chunk); }
  std::string describe(Term t) const;

 private:
  int stride_ = 1;
};

ExpectedOutputs expected_outputs(const Algorithm& algo, const BufferSpace& space, const TermCodec& codec);

}  // namespace ccforge::ir
