#include "postcondition.hpp"

#include <algorithm>
#include <unordered_map>

namespace ccforge::ir {

TermCodec::TermCodec(const BufferSpace& space, int ngpus) {
  for (int r = 0; r < ngpus; ++r) stride_ = std::max(stride_, space.counts(r).input);
}

std::string TermCodec::describe(Term t) const {
  return "rank " + std::to_string(t / static_cast<Term>(stride_)) + " input chunk " + std::to_string(t % static_cast<Term>(stride_));
}

namespace {

class Builder {
 public:
  Builder(const Algorithm& algo, const BufferSpace& space, const TermCodec& codec)
      : n_(algo.ngpus), space_(space), codec_(codec) {}

  int in(int r) const { return space_.counts(r).input; }
  int out(int r) const { return space_.counts(r).output; }

  void expect(int rank, int chunk, Term term) {
    result.chunks.push_back({rank, chunk, std::make_shared<const std::vector<Term>>(1, term)});
  }
  // Every rank's input chunk `chunk`, made once per chunk and shared by every rank that expects it.
  void expect_from_all(int rank, int chunk, int input_chunk) {
    SharedTerms& terms = from_all_[input_chunk];
    if (!terms) {
      std::vector<Term> t;
      for (int q = 0; q < n_; ++q) t.push_back(codec_.encode(q, input_chunk));  // ascending in q: sorted
      terms = std::make_shared<const std::vector<Term>>(std::move(t));
    }
    result.chunks.push_back({rank, chunk, terms});
  }
  bool require(bool ok, const std::string& problem) {
    if (!ok && !result.shape_problem) result.shape_problem = problem;
    return ok;
  }
  bool uniform_input(int c) {
    for (int q = 0; q < n_; ++q)
      if (!require(in(q) == c, "rank " + std::to_string(q) + " has " + std::to_string(in(q)) + " input chunks, rank 0 has " + std::to_string(c))) return false;
    return true;
  }

  // Output as large as the root's input on every rank in `ranks` (all ranks, or just root 0).
  bool outputs_match_input(int ranks) {
    if (!require(in(0) > 0, "rank 0 has no input chunks")) return false;
    for (int r = 0; r < ranks; ++r)
      if (!require(out(r) == in(0), "rank " + std::to_string(r) + " has " + std::to_string(out(r)) + " output chunks for " +
                                        std::to_string(in(0)) + " input chunks"))
        return false;
    return true;
  }

  void allreduce() {
    if (!uniform_input(in(0)) || !outputs_match_input(n_)) return;
    for (int r = 0; r < n_; ++r)
      for (int k = 0; k < out(r); ++k) expect_from_all(r, k, k);
  }
  void allgather(bool root_only) {
    const int c = in(0);
    if (!uniform_input(c) || !require(c > 0, "rank 0 has no input chunks")) return;
    for (int r = 0; r < (root_only ? 1 : n_); ++r) {
      if (!require(out(r) == n_ * c, "rank " + std::to_string(r) + " has " + std::to_string(out(r)) + " output chunks, not ngpus x " + std::to_string(c))) return;
      for (int q = 0; q < n_; ++q)
        for (int j = 0; j < c; ++j) expect(r, q * c + j, codec_.encode(q, j));
    }
  }
  void reducescatter() {
    for (int r = 0; r < n_; ++r) {
      const int c = out(r);
      if (!require(c > 0, "rank " + std::to_string(r) + " has no output chunks") || !uniform_input(n_ * c)) return;
      for (int j = 0; j < c; ++j) expect_from_all(r, j, r * c + j);
    }
  }
  void alltoall() {
    const int c = in(0) / n_;
    if (!uniform_input(n_ * c) || !require(c > 0, "fewer input chunks than ranks")) return;
    for (int r = 0; r < n_; ++r) {
      if (!require(out(r) == n_ * c, "rank " + std::to_string(r) + " output chunks differ from input chunks")) return;
      for (int q = 0; q < n_; ++q)
        for (int j = 0; j < c; ++j) expect(r, q * c + j, codec_.encode(q, r * c + j));
    }
  }
  void broadcast() {
    if (!outputs_match_input(n_)) return;
    for (int r = 0; r < n_; ++r)
      for (int k = 0; k < out(r); ++k) expect(r, k, codec_.encode(0, k));
  }
  void reduce() {
    if (!uniform_input(in(0)) || !outputs_match_input(1)) return;
    for (int k = 0; k < out(0); ++k) expect_from_all(0, k, k);
  }
  void scatter() {
    for (int r = 0; r < n_; ++r) {
      const int c = out(r);
      if (!require(c > 0, "rank " + std::to_string(r) + " has no output chunks") || !require(in(0) >= n_ * c, "root has fewer than ngpus x " + std::to_string(c) + " input chunks")) return;
      for (int j = 0; j < c; ++j) expect(r, j, codec_.encode(0, r * c + j));
    }
  }

  ExpectedOutputs result;

 private:
  int n_;
  const BufferSpace& space_;
  const TermCodec& codec_;
  std::unordered_map<int, SharedTerms> from_all_;  // by input chunk
};

}  // namespace

ExpectedOutputs expected_outputs(const Algorithm& algo, const BufferSpace& space, const TermCodec& codec) {
  Builder b(algo, space, codec);
  switch (algo.collective) {
    case Collective::AllReduce: b.allreduce(); break;
    case Collective::AllGather: b.allgather(false); break;
    case Collective::ReduceScatter: b.reducescatter(); break;
    case Collective::AllToAll: b.alltoall(); break;
    case Collective::Broadcast: b.broadcast(); break;
    case Collective::Reduce: b.reduce(); break;
    case Collective::Gather: b.allgather(true); break;
    case Collective::Scatter: b.scatter(); break;
    case Collective::Send:
    case Collective::Recv:
    case Collective::AllToAllV:
      b.result.skipped = std::string(to_string(algo.collective)) + " has no fixed postcondition; only structure, deadlock and races were checked";
      break;
  }
  return std::move(b.result);
}

}  // namespace ccforge::ir
