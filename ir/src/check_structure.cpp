// Structure and executor limits: peers, channels, offsets, counts, dependency targets, hasdep flags,
// fused reduce chains, threadblocks per channel (formats.md §1.2-1.5).
#include <map>
#include <string>

#include "check_phases.hpp"
#include "op_traits.hpp"

namespace ccforge::ir {

void IssueSink::add(std::string rule, int rank, int tb, int step, std::string message) {
  int line = 0;
  if (rank >= 0 && static_cast<std::size_t>(rank) < algo_.gpus.size()) {
    const GpuProgram& gpu = algo_.gpus[static_cast<std::size_t>(rank)];
    line = gpu.line;
    if (tb >= 0 && static_cast<std::size_t>(tb) < gpu.tbs.size()) {
      const ThreadBlock& t = gpu.tbs[static_cast<std::size_t>(tb)];
      line = t.line;
      if (step >= 0 && static_cast<std::size_t>(step) < t.steps.size()) line = t.steps[static_cast<std::size_t>(step)].line;
    }
  }
  issues_.push_back(CheckIssue{std::move(rule), rank, tb, step, line, std::move(message)});
}

std::string describe(const StepRef& where) {
  return "rank " + std::to_string(where.rank) + " tb " + std::to_string(where.tb) + " step " + std::to_string(where.step);
}

namespace {

bool check_tb_header(const Algorithm& algo, const GpuProgram& gpu, const ThreadBlock& tb, const Limits& limits, IssueSink& sink) {
  bool ok = true;
  for (int peer : {tb.send_peer, tb.recv_peer})
    if (peer < -1 || peer >= algo.ngpus || peer == gpu.rank) {
      sink.add("structure.peer", gpu.rank, tb.id, -1, "peer " + std::to_string(peer) + " is not another rank (use -1 for none)");
      ok = false;
    }
  if (tb.channel < 0 || tb.channel >= algo.nchannels)
    sink.add("structure.channel", gpu.rank, tb.id, -1,
             "channel " + std::to_string(tb.channel) + " is outside nchannels=" + std::to_string(algo.nchannels));
  if (tb.channel >= limits.max_channels)
    sink.add("limit.channels", gpu.rank, tb.id, -1, "channel " + std::to_string(tb.channel) + " exceeds the executor's " + std::to_string(limits.max_channels) + " channels");
  if (static_cast<int>(tb.steps.size()) > limits.max_steps_per_tb)
    sink.add("limit.steps", gpu.rank, tb.id, -1,
             std::to_string(tb.steps.size()) + " steps exceed MSCCL_MAX_NUM_STEPS=" + std::to_string(limits.max_steps_per_tb));
  return ok;
}

bool check_range(const GpuProgram& gpu, const StepRef& at, const char* what, BufferKind buf, int off, int count, IssueSink& sink) {
  const int chunks = chunks_of(gpu, buf);
  if (off >= 0 && off + count <= chunks) return true;
  sink.add("structure.offset", at,
           std::string(what) + " " + to_char(buf) + "[" + std::to_string(off) + ".." + std::to_string(off + count) +
               ") is outside the buffer's " + std::to_string(chunks) + " chunks");
  return false;
}

bool check_step(const GpuProgram& gpu, const ThreadBlock& tb, int s, const Limits& limits, IssueSink& sink) {
  const Step& st = tb.steps[static_cast<std::size_t>(s)];
  const StepRef at{gpu.rank, tb.id, s};
  const OpTraits tr = traits(st.type);
  bool ok = true;
  if ((tr.sends && tb.send_peer < 0) || (tr.receives && tb.recv_peer < 0)) {
    sink.add("structure.peer", at, std::string("'") + to_string(st.type) + "' needs a tb with a " + (tr.sends && tb.send_peer < 0 ? "send" : "recv") + " peer");
    ok = false;
  }
  if (st.type != OpType::Nop) {
    if (st.count < 1) {
      sink.add("structure.count", at, "cnt=" + std::to_string(st.count) + " moves nothing");
      return false;
    }
    if (st.count > limits.max_count)
      sink.add("limit.count", at, "cnt=" + std::to_string(st.count) + " exceeds MSCCL_MAX_COUNT-1=" + std::to_string(limits.max_count));
    if (tr.reads_src) ok &= check_range(gpu, at, "source", st.src_buf, st.src_off, st.count, sink);
    if (tr.writes_dst) ok &= check_range(gpu, at, "destination", st.dst_buf, st.dst_off, st.count, sink);
  }
  if (st.dep_tb < 0) return ok;
  if (static_cast<std::size_t>(st.dep_tb) >= gpu.tbs.size() || st.dep_step < 0 ||
      static_cast<std::size_t>(st.dep_step) >= gpu.tbs[static_cast<std::size_t>(st.dep_tb)].steps.size()) {
    sink.add("structure.dep", at, "depends on tb " + std::to_string(st.dep_tb) + " step " + std::to_string(st.dep_step) + ", which does not exist");
    return false;
  }
  if (!gpu.tbs[static_cast<std::size_t>(st.dep_tb)].steps[static_cast<std::size_t>(st.dep_step)].has_dep)
    sink.add("dep.hasdep", at,
             "waits on tb " + std::to_string(st.dep_tb) + " step " + std::to_string(st.dep_step) +
                 ", which has hasdep=0 and never publishes its flag, so the wait never ends");
  return ok;
}

// The executor fuses consecutive `re` into one dst = dst (+) src1 (+) ... and holds at most
// MSCCL_MAX_REDUCE_FUSION sources (formats.md §1.3); a hasdep=1 step or a dep ends a chain.
void check_fusion(const GpuProgram& gpu, const ThreadBlock& tb, const Limits& limits, IssueSink& sink) {
  int chain = 0;
  for (std::size_t s = 0; s < tb.steps.size(); ++s) {
    const Step& st = tb.steps[s];
    const Step* prev = s > 0 ? &tb.steps[s - 1] : nullptr;
    const bool extends = st.type == OpType::Reduce && prev && prev->type == OpType::Reduce && !prev->has_dep &&
                         st.dep_tb < 0 && prev->dst_buf == st.dst_buf && prev->dst_off == st.dst_off && prev->src_buf == st.src_buf;
    chain = st.type != OpType::Reduce ? 0 : (extends ? chain + 1 : 1);
    if (chain == limits.max_reduce_fusion + 1)
      sink.add("limit.fusion", gpu.rank, tb.id, static_cast<int>(s),
               "fused re chain longer than MSCCL_MAX_REDUCE_FUSION=" + std::to_string(limits.max_reduce_fusion) + " (set hasdep=\"1\" to split it)");
  }
}

void check_tbs_per_channel(const GpuProgram& gpu, const Limits& limits, IssueSink& sink) {
  std::map<int, int> senders, receivers;  // channel -> tbs
  for (const ThreadBlock& tb : gpu.tbs) {
    if (tb.send_peer >= 0 && ++senders[tb.channel] == limits.max_tbs_per_channel + 1)
      sink.add("limit.tbs", gpu.rank, tb.id, -1, "more than " + std::to_string(limits.max_tbs_per_channel) + " sending tbs on channel " + std::to_string(tb.channel));
    if (tb.recv_peer >= 0 && ++receivers[tb.channel] == limits.max_tbs_per_channel + 1)
      sink.add("limit.tbs", gpu.rank, tb.id, -1, "more than " + std::to_string(limits.max_tbs_per_channel) + " receiving tbs on channel " + std::to_string(tb.channel));
  }
}

// The checker keeps state per chunk of every rank's buffers. No executor-selectable algorithm comes near
// this (the largest real file declares 240 chunks per rank); it keeps a hostile file from exhausting memory.
constexpr long long kMaxCheckedChunks = 1 << 22;

bool declared_size_is_checkable(const Algorithm& algo, IssueSink& sink) {
  long long total = 0;
  for (const GpuProgram& g : algo.gpus) total += static_cast<long long>(g.input_chunks) + g.output_chunks + g.scratch_chunks;
  if (total <= kMaxCheckedChunks) return true;
  sink.add("limit.size", -1, -1, -1,
           std::to_string(total) + " chunks declared over all ranks; the checker handles at most " + std::to_string(kMaxCheckedChunks));
  return false;
}

}  // namespace

bool check_structure(const Algorithm& algo, const Limits& limits, IssueSink& sink) {
  if (algo.ngpus < 1 || algo.gpus.size() != static_cast<std::size_t>(algo.ngpus)) {
    sink.add("structure.gpus", -1, -1, -1, "ngpus=" + std::to_string(algo.ngpus) + " but " + std::to_string(algo.gpus.size()) + " gpu programs");
    return false;
  }
  if (!declared_size_is_checkable(algo, sink)) return false;
  if (algo.nchannels > limits.max_channels)
    sink.add("limit.channels", -1, -1, -1, "nchannels=" + std::to_string(algo.nchannels) + " exceeds MAXCHANNELS=" + std::to_string(limits.max_channels));
  bool ok = true;
  for (std::size_t r = 0; r < algo.gpus.size(); ++r) {
    const GpuProgram& gpu = algo.gpus[r];
    if (gpu.rank != static_cast<int>(r)) {
      sink.add("structure.gpus", static_cast<int>(r), -1, -1, "gpu program at index " + std::to_string(r) + " has rank " + std::to_string(gpu.rank));
      return false;
    }
    for (std::size_t t = 0; t < gpu.tbs.size(); ++t) {
      const ThreadBlock& tb = gpu.tbs[t];
      if (tb.id != static_cast<int>(t)) {
        sink.add("structure.tb_id", gpu.rank, static_cast<int>(t), -1, "tb at index " + std::to_string(t) + " has id " + std::to_string(tb.id));
        return false;
      }
      ok &= check_tb_header(algo, gpu, tb, limits, sink);
      for (std::size_t s = 0; s < tb.steps.size(); ++s) ok &= check_step(gpu, tb, static_cast<int>(s), limits, sink);
      check_fusion(gpu, tb, limits, sink);
    }
    check_tbs_per_channel(gpu, limits, sink);
  }
  return ok && check_connections(algo, sink);
}

}  // namespace ccforge::ir
