// What each collective must leave in each output chunk, as multisets of (rank, input chunk)
// contributions. MSCCL XML has no root attribute: broadcast, reduce, gather and scatter are checked
// with root 0, the convention of msccl-tools' collectives and of ccforge's builder.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buffer_space.hpp"

namespace ccforge::ir {

using Term = std::uint64_t;  // rank * stride + logical input chunk
// A sorted multiset of terms, immutable and shared: every rank of an allreduce expects the same
// multiset in output chunk k, so it is made once per chunk, not once per rank (ranks^3 terms at 1024).
using SharedTerms = std::shared_ptr<const std::vector<Term>>;

struct Expectation {
  int rank;
  int output_chunk;
  SharedTerms terms;
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
