// Second half of build(): emit steps in program order, adding the cross-tb dependencies that keep
// every chunk's reads and writes in program order (first dep on the op, extra deps as nops, hasdep
// on dependees), then check the executor limits. Because every tb lists its steps in program order
// and every edge of the step graph points forward in it, the result cannot deadlock.
#include "ccforge/ir/builder.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "aliasing.hpp"
#include "builder_outofplace.hpp"
#include "builder_plan.hpp"
#include "op_traits.hpp"

namespace ccforge::ir {
namespace {

struct StepAt {
  int tb;
  int step;
};

[[noreturn]] void fail(const BuilderSpec& spec, std::string problem, std::string fix) {
  throw DiagError(Diag{{"builder " + spec.name, 0}, std::move(problem), std::move(fix)});
}

class Emitter {
 public:
  explicit Emitter(const BuildPlan& plan) : plan_(plan) {
    ranks_.resize(plan.ranks.size());
    for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
      ranks_[r].tbs.resize(plan.ranks[r].tbs.size());
      ranks_[r].waited.resize(plan.ranks[r].tbs.size());
    }
    size_chunk_states();
  }

  void emit_all() {
    for (const PlannedOp& op : plan_.ops) emit(op);
  }

  std::vector<GpuProgram> programs() const;

 private:
  struct ChunkState {
    StepAt last_write{-1, -1};
    std::vector<StepAt> reads_since;
  };
  static constexpr std::size_t kBuffers = 3;  // input, output, scratch
  struct RankState {
    std::vector<std::vector<Step>> tbs;
    std::vector<std::map<int, int>> waited;  // per tb: other tb -> highest step already waited on
    std::array<std::size_t, kBuffers> first{};  // per buffer: its first entry in chunks
    std::vector<ChunkState> chunks;  // every chunk of the rank's buffers, flat: a map entry per chunk
                                     // dominated building at 128 ranks
    ChunkState& chunk(BufferKind buf, int index) { return chunks[first[static_cast<std::size_t>(buf)] + static_cast<std::size_t>(index)]; }
  };

  // Every chunk an op addresses gets a state slot; buffer widths are the highest chunk addressed.
  void size_chunk_states() {
    std::vector<std::array<std::size_t, kBuffers>> width(ranks_.size());
    for (const PlannedOp& op : plan_.ops)
      for (const ChunkRef& c : {op.src, op.dst}) {
        std::size_t& w = width[static_cast<std::size_t>(c.rank)][static_cast<std::size_t>(c.buf)];
        w = std::max(w, static_cast<std::size_t>(c.index + c.count));
      }
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      std::size_t total = 0;
      for (std::size_t b = 0; b < kBuffers; ++b) {
        ranks_[r].first[b] = total;
        total += width[r][b];
      }
      ranks_[r].chunks.resize(total);
    }
  }

  void emit(const PlannedOp& op) {
    const RankLayout& src_layout = plan_.ranks[static_cast<std::size_t>(op.src.rank)];
    const RankLayout& dst_layout = plan_.ranks[static_cast<std::size_t>(op.dst.rank)];
    if (op.kind == OpType::Copy || op.kind == OpType::Reduce) {
      add_step(op.src.rank, src_layout.tb_local(op.channel), op.kind, op.src, op.dst);
      return;
    }
    if (!op.sent_by_fusion) add_step(op.src.rank, src_layout.tb_sending(op.dst.rank, op.channel), OpType::Send, op.src, op.dst);
    const bool reduces = op.kind == OpType::RecvReduceCopy;
    if (op.fused_send >= 0) {
      const PlannedOp& next = plan_.ops[static_cast<std::size_t>(op.fused_send)];
      const OpType fused = !reduces ? OpType::RecvCopySend : op.result_unused ? OpType::RecvReduceSend : OpType::RecvReduceCopySend;
      add_step(op.dst.rank, dst_layout.tb_sending(next.dst.rank, op.channel), fused, op.dst, op.dst);
    } else {
      add_step(op.dst.rank, dst_layout.tb_receiving(op.src.rank, op.channel), reduces ? OpType::RecvReduceCopy : OpType::Recv,
               reduces ? op.dst : op.src, op.dst);
    }
  }

  // Latest conflicting access of every chunk the step touches, on other tbs of the rank, one per tb in
  // ascending tb order, into deps_ (reused: a container per step was most of the emit time).
  void conflicts(RankState& rs, int tb, const Step& st) {
    const OpTraits tr = traits(st.type);
    deps_.clear();
    auto need = [&](StepAt a) {
      if (a.tb >= 0 && a.tb != tb) deps_.push_back(a);
    };
    for (int k = 0; k < st.count; ++k) {
      if (tr.reads_src) need(rs.chunk(st.src_buf, st.src_off + k).last_write);
      if (!tr.writes_dst) continue;
      const ChunkState& c = rs.chunk(st.dst_buf, st.dst_off + k);
      need(c.last_write);
      for (StepAt r : c.reads_since) need(r);
    }
    std::sort(deps_.begin(), deps_.end(), [](StepAt a, StepAt b) { return a.tb != b.tb ? a.tb < b.tb : a.step < b.step; });
    // Keep the latest step per tb (the last of its run), and only those not already waited on.
    const auto& waited = rs.waited[static_cast<std::size_t>(tb)];
    std::size_t kept = 0;
    for (std::size_t i = 0; i < deps_.size(); ++i) {
      if (i + 1 < deps_.size() && deps_[i + 1].tb == deps_[i].tb) continue;
      const auto w = waited.find(deps_[i].tb);
      if (w == waited.end() || w->second < deps_[i].step) deps_[kept++] = deps_[i];
    }
    deps_.resize(kept);
  }

  void add_step(int rank, int tb, OpType type, const ChunkRef& src, const ChunkRef& dst) {
    RankState& rs = ranks_[static_cast<std::size_t>(rank)];
    auto& steps = rs.tbs[static_cast<std::size_t>(tb)];
    Step st{type, src.buf, src.index, dst.buf, dst.index, dst.count};
    conflicts(rs, tb, st);
    for (std::size_t i = 0; i < deps_.size(); ++i) {
      const StepAt d = deps_[i];
      rs.tbs[static_cast<std::size_t>(d.tb)][static_cast<std::size_t>(d.step)].has_dep = true;
      rs.waited[static_cast<std::size_t>(tb)][d.tb] = d.step;
      if (i + 1 == deps_.size()) break;  // the last dep rides on the op itself
      steps.push_back(Step{OpType::Nop, BufferKind::Input, -1, BufferKind::Output, -1, 0, d.tb, d.step});
    }
    if (!deps_.empty()) {
      st.dep_tb = deps_.back().tb;
      st.dep_step = deps_.back().step;
    }
    if (type == OpType::Reduce && st.dep_tb < 0) limit_fused_chain(steps, st);
    steps.push_back(st);
    record_accesses(rs, StepAt{tb, static_cast<int>(steps.size()) - 1}, st);
  }

  // Keeps chains of fused `re` at most MSCCL_MAX_REDUCE_FUSION long: hasdep=1 ends a chain.
  void limit_fused_chain(std::vector<Step>& steps, const Step& next) const {
    int chain = 0;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      const bool member = it->type == OpType::Reduce && it->dst_buf == next.dst_buf && it->dst_off == next.dst_off &&
                          it->src_buf == next.src_buf && !it->has_dep;
      if (!member) break;
      ++chain;
      if (it->dep_tb >= 0) break;
    }
    if (chain >= Limits{}.max_reduce_fusion) steps.back().has_dep = true;
  }

  static void record_accesses(RankState& rs, StepAt at, const Step& st) {
    const OpTraits tr = traits(st.type);
    for (int k = 0; k < st.count; ++k) {
      if (tr.reads_src) rs.chunk(st.src_buf, st.src_off + k).reads_since.push_back(at);
      if (!tr.writes_dst) continue;
      ChunkState& c = rs.chunk(st.dst_buf, st.dst_off + k);
      c.last_write = at;
      c.reads_since.clear();
    }
  }

  const BuildPlan& plan_;
  std::vector<RankState> ranks_;
  std::vector<StepAt> deps_;
};

std::vector<GpuProgram> Emitter::programs() const {
  std::vector<GpuProgram> gpus(ranks_.size());
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    GpuProgram& g = gpus[r];
    g.rank = static_cast<int>(r);
    g.input_chunks = plan_.input_chunks[r];
    g.output_chunks = plan_.output_chunks[r];
    g.scratch_chunks = plan_.scratch_chunks[r];
    for (std::size_t t = 0; t < ranks_[r].tbs.size(); ++t) {
      const TbKey& key = plan_.ranks[r].tbs[t];
      g.tbs.push_back(ThreadBlock{static_cast<int>(t), key.send_peer, key.recv_peer, key.channel, ranks_[r].tbs[t]});
    }
  }
  return gpus;
}

// Every recorded transfer gets a tb on its channel and local ops run on one of those channels (or 0),
// so the channel count is known before planning: a program over the limit is refused without
// building it (at 128 ranks that build took seconds).
int channels_of(const std::vector<PlannedOp>& ops) {
  int most = 0;
  for (const PlannedOp& op : ops) most = std::max(most, op.channel);
  return most + 1;
}

void check_channel_limit(const BuilderSpec& spec, int nchannels) {
  const Limits limits;
  if (nchannels > limits.max_channels)
    fail(spec, "uses " + std::to_string(nchannels) + " channels, more than MAXCHANNELS=" + std::to_string(limits.max_channels), "use fewer channels");
}

void check_limits(const BuilderSpec& spec, const Algorithm& algo) {
  const Limits limits;
  for (const GpuProgram& g : algo.gpus) {
    std::map<int, int> senders, receivers;
    for (const ThreadBlock& tb : g.tbs) {
      if (static_cast<int>(tb.steps.size()) > limits.max_steps_per_tb)
        fail(spec, "rank " + std::to_string(g.rank) + " tb " + std::to_string(tb.id) + " needs " + std::to_string(tb.steps.size()) +
                       " steps, more than MSCCL_MAX_NUM_STEPS=" + std::to_string(limits.max_steps_per_tb),
             "spread the transfers over more channels or use larger chunk runs");
      if ((tb.send_peer >= 0 && ++senders[tb.channel] > limits.max_tbs_per_channel) ||
          (tb.recv_peer >= 0 && ++receivers[tb.channel] > limits.max_tbs_per_channel))
        fail(spec, "rank " + std::to_string(g.rank) + " has more than " + std::to_string(limits.max_tbs_per_channel) + " tbs per direction on channel " + std::to_string(tb.channel),
             "use more channels");
    }
  }
}

}  // namespace

Algorithm AlgorithmBuilder::build() const {
  std::vector<PlannedOp> recorded;
  for (const Op& op : ops_) recorded.push_back(PlannedOp{op.kind, op.src, op.dst, op.channel});
  if (spec_.derive_outofplace && !spec_.inplace && inplace_aliasing(spec_.collective) != Aliasing::None)
    recorded = outofplace_ops(spec_, recorded);
  const int nchannels = channels_of(recorded);
  check_channel_limit(spec_, nchannels);
  const BuildPlan plan = plan_build(spec_, recorded);
  Emitter emitter(plan);
  emitter.emit_all();
  Algorithm algo;
  algo.name = spec_.name;
  algo.collective = spec_.collective;
  algo.protocol = spec_.protocol;
  algo.ngpus = spec_.ngpus;
  algo.inplace = spec_.inplace;
  algo.outofplace = !spec_.inplace;
  algo.gpus = emitter.programs();
  algo.nchannels = nchannels;
  // Not simply the largest buffer: gather's output and scatter's input span ngpus x nchunksperloop.
  algo.nchunksperloop = std::max(1, chunks_per_loop(spec_.collective, spec_.input_chunks, spec_.output_chunks));
  check_limits(spec_, algo);
  return algo;
}

}  // namespace ccforge::ir
