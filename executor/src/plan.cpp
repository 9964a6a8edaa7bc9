#include "plan.hpp"

#include <algorithm>
#include <string>

#include "ccforge/common/diag.hpp"

namespace ccforge::executor {
namespace {

constexpr int kMaxCount = ir::Limits{}.max_count;  // the parser's cnt limit

[[noreturn]] void fail(const ir::Algorithm& algo, int line, const std::string& problem, const std::string& fix) {
  throw DiagError(Diag{{algo.source_file.empty() ? algo.name : algo.source_file, line}, problem, fix});
}

std::string where(int rank, int tb, int step) {
  return "rank " + std::to_string(rank) + " tb " + std::to_string(tb) + " step " + std::to_string(step) + ": ";
}

void check_tb(const ir::Algorithm& algo, int rank, const ir::ThreadBlock& tb) {
  const auto bad_peer = [&](int peer) { return peer < -1 || peer >= algo.ngpus || peer == rank; };
  if (bad_peer(tb.send_peer) || bad_peer(tb.recv_peer))
    fail(algo, tb.line, "rank " + std::to_string(rank) + " tb " + std::to_string(tb.id) + " has peer outside 0.." +
                            std::to_string(algo.ngpus - 1) + " or equal to itself", "use -1 for no peer");
  if (tb.channel < 0 || tb.channel >= algo.nchannels)
    fail(algo, tb.line, "rank " + std::to_string(rank) + " tb " + std::to_string(tb.id) + " uses channel " +
                            std::to_string(tb.channel) + " but nchannels is " + std::to_string(algo.nchannels),
         "raise nchannels or renumber the channel");
}

char buffer_letter(ir::BufferKind kind) {
  return kind == ir::BufferKind::Input ? 'i' : kind == ir::BufferKind::Output ? 'o' : 's';
}

void check_extent(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan, int rank, int tb,
                  int index, const ir::Step& step, ir::BufferKind kind, int offset) {
  const std::size_t elems = buffer_elems(algo, call, plan, rank, kind);
  const auto end = static_cast<std::size_t>(offset) + static_cast<std::size_t>(step.count);
  if (offset < 0 || end * plan.chunk_elems > elems)
    fail(algo, step.line, where(rank, tb, index) + "chunks [" + std::to_string(offset) + ", " + std::to_string(end) +
                              ") of buffer '" + buffer_letter(kind) + "' lie outside its " +
                              std::to_string(elems / plan.chunk_elems) + " chunks",
         "fix the offset/cnt or the gpu's chunk counts");
}

void check_step(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan, int rank,
                const ir::GpuProgram& gpu, const ir::ThreadBlock& tb, int index) {
  const ir::Step& step = tb.steps[static_cast<std::size_t>(index)];
  if (step.dep_tb >= 0) {
    if (step.dep_tb >= static_cast<int>(gpu.tbs.size()) || step.dep_tb == tb.id || step.dep_step < 0 ||
        step.dep_step >= static_cast<int>(gpu.tbs[static_cast<std::size_t>(step.dep_tb)].steps.size()))
      fail(algo, step.line, where(rank, tb.id, index) + "depends on tb " + std::to_string(step.dep_tb) + " step " +
                                std::to_string(step.dep_step) + ", which does not exist",
           "point depid/deps at an existing step of another tb");
  }
  if (step.type == ir::OpType::Nop) return;
  if (step.count <= 0 || step.count > kMaxCount)
    fail(algo, step.line, where(rank, tb.id, index) + "cnt " + std::to_string(step.count) + " outside 1.." + std::to_string(kMaxCount),
         "split the transfer into steps of at most " + std::to_string(kMaxCount) + " chunks");
  if (ir::op_sends(step.type) && tb.send_peer < 0)
    fail(algo, step.line, where(rank, tb.id, index) + "sends but its tb has send=\"-1\"", "set the tb's send peer");
  if (ir::op_receives(step.type) && tb.recv_peer < 0)
    fail(algo, step.line, where(rank, tb.id, index) + "receives but its tb has recv=\"-1\"", "set the tb's recv peer");
  if (ir::traits(step.type).reads_src) check_extent(algo, call, plan, rank, tb.id, index, step, step.src_buf, step.src_off);
  if (ir::traits(step.type).writes_dst) check_extent(algo, call, plan, rank, tb.id, index, step, step.dst_buf, step.dst_off);
}

}  // namespace

ChunkPlan plan_chunks(const ir::Algorithm& algo, const CallSpec& call) {
  if (auto reason = why_not_runnable(algo, call))
    fail(algo, 0, "cannot run " + std::to_string(call.count) + " elements: " + *reason,
         "choose a size the algorithm's chunking divides");
  ChunkPlan plan;
  plan.elem_bytes = size_of(call.dtype);
  const std::size_t total = call.count * static_cast<std::size_t>(ir::size_multiplier(algo.collective, algo.ngpus));
  plan.chunk_elems = total / static_cast<std::size_t>(algo.nchunksperloop);
  plan.tile_elems = std::max<std::size_t>(1, static_cast<std::size_t>(ir::tile_bytes(algo.protocol)) / plan.elem_bytes);
  plan.iterations = (plan.chunk_elems + plan.tile_elems - 1) / plan.tile_elems;
  const std::size_t chunk_bytes = plan.chunk_elems * plan.elem_bytes;
  plan.max_allowed_count = ir::max_allowed_count(algo.protocol, static_cast<ByteCount>(chunk_bytes));
  return plan;
}

std::size_t buffer_elems(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan, int rank,
                         ir::BufferKind kind) {
  const BufferLayout layout = buffer_layout(call, algo.ngpus, rank);
  switch (kind) {
    case ir::BufferKind::Input: return layout.send_elems;
    case ir::BufferKind::Output: return layout.recv_elems;
    case ir::BufferKind::Scratch:
      return static_cast<std::size_t>(std::max(0, algo.gpus[static_cast<std::size_t>(rank)].scratch_chunks)) * plan.chunk_elems;
  }
  return 0;
}

void check_buffers(const ir::Algorithm& algo, const CallSpec& call, const std::vector<RankBuffers>& buffers) {
  const auto bad = [](const std::string& what) {
    throw DiagError(Diag{{"executor", 0}, what, "size the buffers with executor::buffer_layout"});
  };
  if (static_cast<int>(buffers.size()) != algo.ngpus)
    bad(std::to_string(buffers.size()) + " rank buffers for an algorithm of " + std::to_string(algo.ngpus) + " ranks");
  const std::size_t elem = size_of(call.dtype);
  for (int r = 0; r < algo.ngpus; ++r) {
    const BufferLayout layout = buffer_layout(call, algo.ngpus, r);
    const RankBuffers& b = buffers[static_cast<std::size_t>(r)];
    const bool ok = call.inplace ? b.recv.size() == layout.inplace_elems * elem
                                 : b.send.size() == layout.send_elems * elem && b.recv.size() == layout.recv_elems * elem;
    if (!ok) bad("rank " + std::to_string(r) + " buffers have the wrong size for this call");
  }
}

void check_runnable(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan) {
  if (algo.ngpus < 1 || static_cast<int>(algo.gpus.size()) != algo.ngpus)
    fail(algo, 0, "ngpus is " + std::to_string(algo.ngpus) + " but " + std::to_string(algo.gpus.size()) +
                      " <gpu> programs are present", "give one <gpu> per rank");
  for (int rank = 0; rank < algo.ngpus; ++rank) {
    const ir::GpuProgram& gpu = algo.gpus[static_cast<std::size_t>(rank)];
    for (std::size_t t = 0; t < gpu.tbs.size(); ++t) {
      const ir::ThreadBlock& tb = gpu.tbs[t];
      if (tb.id != static_cast<int>(t))
        fail(algo, tb.line, "rank " + std::to_string(rank) + " tb ids are not dense 0..n-1", "renumber the tbs");
      check_tb(algo, rank, tb);
      for (int s = 0; s < static_cast<int>(tb.steps.size()); ++s) check_step(algo, call, plan, rank, gpu, tb, s);
    }
  }
}

}  // namespace ccforge::executor
