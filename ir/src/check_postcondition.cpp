// Postcondition by symbolic execution: run the steps in a topological order of the step graph (any
// order gives the same result once races are excluded), tracking for every chunk the multiset of
// input contributions it holds, then compare each output chunk with what the collective requires.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "buffer_space.hpp"
#include "check_phases.hpp"
#include "op_traits.hpp"
#include "postcondition.hpp"

namespace ccforge::ir {
namespace {

// Terms are immutable once made and shared between every chunk holding the same contribution: a
// copy or a transfer shares them, only a reduction makes new ones (copying the multisets made the
// allgather half of a 128-rank allreduce move ~10^7 terms).
using Terms = std::shared_ptr<const std::vector<Term>>;

struct Value {
  bool undefined = true;  // uninitialised memory, or anything combined with it
  Terms terms;            // sorted multiset; null when undefined
};

// Equal multisets made by different reductions share one vector: every rank of a recursive-doubling
// group computes the same sum, so at 16,384 ranks the distinct sums hold ~p log p terms where one per
// chunk held ~p^2 (rd allreduce: 4.3 GB and 97 s checking, measured with ir::check on ndv5-x2048).
// Entries are weak, so a sum nobody holds any more is freed; expired entries are swept once they
// outnumber the live ones.
class TermsPool {
 public:
  Terms intern(std::vector<Term>&& terms) {
    std::vector<std::weak_ptr<const std::vector<Term>>>& bucket = pool_[hash(terms)];
    for (const auto& entry : bucket)
      if (Terms live = entry.lock(); live && *live == terms) return live;
    Terms made = std::make_shared<const std::vector<Term>>(std::move(terms));
    bucket.push_back(made);
    if (++entries_ > 2 * live_after_sweep_ + kSweepAtLeast) sweep();
    return made;
  }

 private:
  static constexpr std::size_t kSweepAtLeast = 4096;

  static std::size_t hash(const std::vector<Term>& terms) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a offset basis and prime, per 64-bit term
    for (Term t : terms) h = (h ^ t) * 1099511628211ULL;
    return static_cast<std::size_t>(h);
  }

  void sweep() {
    entries_ = 0;
    for (auto it = pool_.begin(); it != pool_.end();) {
      std::erase_if(it->second, [](const auto& entry) { return entry.expired(); });
      entries_ += it->second.size();
      it = it->second.empty() ? pool_.erase(it) : std::next(it);
    }
    live_after_sweep_ = entries_;
  }

  std::unordered_map<std::size_t, std::vector<std::weak_ptr<const std::vector<Term>>>> pool_;
  std::size_t entries_ = 0, live_after_sweep_ = 0;
};

Value combine(const Value& a, const Value& b, TermsPool& pool) {
  if (a.undefined || b.undefined) return {};
  std::vector<Term> merged;
  merged.reserve(a.terms->size() + b.terms->size());
  std::merge(a.terms->begin(), a.terms->end(), b.terms->begin(), b.terms->end(), std::back_inserter(merged));
  return {false, pool.intern(std::move(merged))};
}

class SymbolicRun {
 public:
  SymbolicRun(const StepGraph& graph, const BufferSpace& space, const TermCodec& codec, int ngpus)
      : graph_(graph), space_(space), mem_(static_cast<std::size_t>(space.size())),
        writer_(static_cast<std::size_t>(space.size()), -1), in_flight_(static_cast<std::size_t>(graph.size())) {
    for (int q = 0; q < ngpus; ++q)
      for (int k = 0; k < space.counts(q).input; ++k) {
        const int loc = space.logical_input(q, k);
        if (loc >= 0) mem_[static_cast<std::size_t>(loc)] = Value{false, std::make_shared<const std::vector<Term>>(1, codec.encode(q, k))};
      }
    for (int v : graph.topo_order()) execute(v);
  }

  const Value& value(int loc) const { return mem_[static_cast<std::size_t>(loc)]; }
  int writer(int loc) const { return writer_[static_cast<std::size_t>(loc)]; }

 private:
  void execute(int v) {
    const Step& st = graph_.step(v);
    const OpTraits tr = traits(st.type);
    const int rank = graph_.ref(v).rank;
    std::vector<Value> received;
    if (tr.receives) received = std::move(in_flight_[static_cast<std::size_t>(graph_.matched_send(v))]);
    std::vector<Value> sent;
    const Value nothing;
    for (int k = 0; k < st.count && st.type != OpType::Nop; ++k) {
      const int src_loc = tr.reads_src ? space_.locate(rank, st.src_buf, st.src_off + k) : -1;
      const int dst_loc = tr.writes_dst ? space_.locate(rank, st.dst_buf, st.dst_off + k) : -1;
      if ((tr.reads_src && src_loc < 0) || (tr.writes_dst && dst_loc < 0)) return;  // reported as structure.alias
      const Value* src = src_loc >= 0 ? &mem_[static_cast<std::size_t>(src_loc)] : nullptr;
      const Value& incoming = tr.receives && static_cast<std::size_t>(k) < received.size() ? received[static_cast<std::size_t>(k)] : nothing;
      Value result;
      if (tr.receives) result = tr.reduces ? combine(incoming, *src, pool_) : incoming;
      else if (tr.reads_dst) result = combine(mem_[static_cast<std::size_t>(dst_loc)], *src, pool_);  // re
      else result = *src;  // s, cpy
      if (tr.sends) sent.push_back(result);
      if (dst_loc >= 0) {
        mem_[static_cast<std::size_t>(dst_loc)] = std::move(result);
        writer_[static_cast<std::size_t>(dst_loc)] = v;
      }
    }
    if (tr.sends) in_flight_[static_cast<std::size_t>(v)] = std::move(sent);
  }

  const StepGraph& graph_;
  const BufferSpace& space_;
  std::vector<Value> mem_;
  std::vector<int> writer_;
  std::vector<std::vector<Value>> in_flight_;  // data of each send until its receive runs
  TermsPool pool_;
};

std::string difference(const std::vector<Term>& have, const std::vector<Term>& want, const TermCodec& codec) {
  std::vector<Term> missing, extra;
  std::set_difference(want.begin(), want.end(), have.begin(), have.end(), std::back_inserter(missing));
  std::set_difference(have.begin(), have.end(), want.begin(), want.end(), std::back_inserter(extra));
  if (!missing.empty()) return "misses the contribution of " + codec.describe(missing.front()) + (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : "");
  const auto dup = std::adjacent_find(extra.begin(), extra.end());
  if (dup != extra.end() || std::binary_search(want.begin(), want.end(), extra.front()))
    return "counts " + codec.describe(dup != extra.end() ? *dup : extra.front()) + " more than once";
  return "holds " + codec.describe(extra.front()) + ", which does not belong there";
}

}  // namespace

void check_postcondition(const Algorithm& algo, const StepGraph& graph, bool inplace, IssueSink& sink, std::vector<std::string>& notes) {
  const BufferSpace space(algo, inplace);
  const TermCodec codec(space, algo.ngpus);
  const ExpectedOutputs expected = expected_outputs(algo, space, codec);
  if (expected.skipped) {
    notes.push_back(*expected.skipped);
    return;
  }
  if (expected.shape_problem) sink.add("postcondition.shape", -1, -1, -1, std::string(to_string(algo.collective)) + ": " + *expected.shape_problem);
  const SymbolicRun run(graph, space, codec, algo.ngpus);
  constexpr int kMaxReported = 20;
  int reported = 0;
  // Copies share their terms and ranks share expectations, so each distinct (held, expected) pair of
  // multisets is compared once.
  std::map<std::pair<std::uintptr_t, std::uintptr_t>, bool> equal;
  const auto holds = [&](const Value& v, const Expectation& e) {
    if (v.undefined) return false;
    if (v.terms == e.terms) return true;
    const auto [it, fresh] = equal.try_emplace({reinterpret_cast<std::uintptr_t>(v.terms.get()), reinterpret_cast<std::uintptr_t>(e.terms.get())}, false);
    if (fresh) it->second = *v.terms == *e.terms;
    return it->second;
  };
  for (const Expectation& e : expected.chunks) {
    const int loc = space.logical_output(e.rank, e.output_chunk);
    if (loc < 0) continue;
    const Value& v = run.value(loc);
    if (holds(v, e)) continue;
    const std::string what = (inplace ? "in-place " : "") + std::string("output chunk ") + std::to_string(e.output_chunk) + " of rank " + std::to_string(e.rank) + " ";
    const int w = run.writer(loc);
    const std::string why = w < 0 ? "is never written" : (v.undefined ? "holds uninitialised data" : difference(*v.terms, *e.terms, codec));
    if (w < 0) sink.add("postcondition", e.rank, -1, -1, what + why);
    else sink.add("postcondition", graph.ref(w), what + why + " after this step");
    if (++reported == kMaxReported) return;
  }
}

}  // namespace ccforge::ir
