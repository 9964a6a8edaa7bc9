#include "threadblock.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "elements.hpp"

namespace ccforge::executor::host {
namespace {

std::byte* base_of(const TbContext& ctx, ir::BufferKind kind) {
  switch (kind) {
    case ir::BufferKind::Input: return ctx.memory.input;
    case ir::BufferKind::Output: return ctx.memory.output;
    case ir::BufferKind::Scratch: return ctx.memory.scratch;
  }
  return nullptr;
}

std::byte* address(const TbContext& ctx, ir::BufferKind kind, int chunk, std::size_t tile_offset) {
  const ChunkPlan& plan = *ctx.plan;
  return base_of(ctx, kind) + (static_cast<std::size_t>(chunk) * plan.chunk_elems + tile_offset) * plan.elem_bytes;
}

class StepRunner {
 public:
  StepRunner(const TbContext& ctx, int index, const ir::Step& step) : ctx_(ctx), index_(index), step_(step) {}

  // One primitive call of `elems` elements at src/dst (either may be null when the op does not use it).
  void transfer(std::byte* src, std::byte* dst, std::size_t elems) {
    const std::size_t bytes = elems * ctx_.plan->elem_bytes;
    switch (step_.type) {
      case ir::OpType::Send: return push(std::vector<std::byte>(src, src + bytes));
      case ir::OpType::Recv: return std::memcpy(dst, receive(bytes).data(), bytes), void();
      case ir::OpType::RecvCopySend: {
        std::vector<std::byte> data = receive(bytes);
        std::memcpy(dst, data.data(), bytes);
        return push(std::move(data));
      }
      case ir::OpType::RecvReduceSend: {
        std::vector<std::byte> data = receive(bytes);
        reduce(data.data(), data.data(), src, elems);
        return push(std::move(data));
      }
      case ir::OpType::RecvReduceCopy: return reduce(dst, receive(bytes).data(), src, elems);
      case ir::OpType::RecvReduceCopySend:
        reduce(dst, receive(bytes).data(), src, elems);
        return push(std::vector<std::byte>(dst, dst + bytes));
      case ir::OpType::Copy: return std::memmove(dst, src, bytes), void();
      case ir::OpType::Reduce: return reduce(dst, dst, src, elems);
      case ir::OpType::Nop: return;
    }
  }

 private:
  void reduce(std::byte* dst, const std::byte* a, const std::byte* b, std::size_t elems) {
    reduce_elements(ctx_.call->dtype, ctx_.call->op, dst, a, b, elems);
  }

  void push(std::vector<std::byte> data) {
    ctx_.status->blocked = Blocked::OnSend;
    ctx_.send->push(std::move(data));
    ctx_.status->blocked = Blocked::Running;
  }

  std::vector<std::byte> receive(std::size_t expected_bytes) {
    ctx_.status->blocked = Blocked::OnReceive;
    std::vector<std::byte> data = ctx_.recv->pop();
    ctx_.status->blocked = Blocked::Running;
    if (data.size() != expected_bytes) {
      throw DiagError(Diag{{ctx_.algo->source_file, step_.line},
                           "rank " + std::to_string(ctx_.rank) + " tb " + std::to_string(ctx_.tb->id) + " step " +
                               std::to_string(index_) + " expects " + std::to_string(expected_bytes) +
                               " bytes but rank " + std::to_string(ctx_.tb->recv_peer) + " sent " +
                               std::to_string(data.size()),
                           "the k-th send and k-th receive of a connection must carry the same cnt"});
    }
    return data;
  }

  const TbContext& ctx_;
  int index_;
  const ir::Step& step_;
};

// Runs one step on the tile [tile_offset, tile_offset + tile_len) of each of its chunks. Chunks go in
// groups of max_allowed_count per primitive call; a group of several chunks only happens when a chunk
// fits in one tile, so the group is contiguous (formats.md §1.7).
void run_step(const TbContext& ctx, int index, const ir::Step& step, std::size_t tile_offset, std::size_t tile_len) {
  const ChunkPlan& plan = *ctx.plan;
  StepRunner runner(ctx, index, step);
  for (int done = 0; done < step.count; done += plan.max_allowed_count) {
    const int group = std::min(plan.max_allowed_count, step.count - done);
    const std::size_t elems = static_cast<std::size_t>(group - 1) * plan.chunk_elems + tile_len;
    std::byte* src = ir::traits(step.type).reads_src ? address(ctx, step.src_buf, step.src_off + done, tile_offset) : nullptr;
    std::byte* dst = ir::traits(step.type).writes_dst ? address(ctx, step.dst_buf, step.dst_off + done, tile_offset) : nullptr;
    runner.transfer(src, dst, elems);
  }
}

// ncclAvg's division (executor.hpp): once per call on the rank's result, after all its tbs finished.
void finish_average(const TbContext& ctx) {
  const CallSpec& call = *ctx.call;
  if (call.op != RedOp::Avg || !applies_reduction(call.collective) || !receives_result(call, ctx.rank)) return;
  divide_elements(call.dtype, ctx.memory.output, buffer_layout(call, ctx.algo->ngpus, ctx.rank).recv_elems, ctx.algo->ngpus);
}

}  // namespace

void run_threadblock(const TbContext& ctx, int calls) {
  const ChunkPlan& plan = *ctx.plan;
  const auto& steps = ctx.tb->steps;
  std::uint64_t iteration = 0;  // counts tiles across calls, so flags stay monotone
  for (int call = 0; call < calls; ++call) {
    for (std::size_t tile = 0; tile < plan.iterations; ++tile, ++iteration) {
      const std::size_t tile_offset = tile * plan.tile_elems;
      const std::size_t tile_len = std::min(plan.tile_elems, plan.chunk_elems - tile_offset);
      for (int s = 0; s < static_cast<int>(steps.size()); ++s) {
        const ir::Step& step = steps[static_cast<std::size_t>(s)];
        ctx.status->step = s;
        if (step.dep_tb >= 0) {
          const std::uint64_t awaited = iteration * kFlagStride + static_cast<std::uint64_t>(step.dep_step) + 1;
          ctx.status->awaited = awaited;
          ctx.status->blocked = Blocked::OnDependency;
          ctx.flags->wait_at_least(static_cast<std::size_t>(step.dep_tb), awaited);
          ctx.status->blocked = Blocked::Running;
        }
        run_step(ctx, s, step, tile_offset, tile_len);
        // Only hasdep steps publish, as on the GPU: a dependency on any other step never resolves.
        if (step.has_dep) ctx.flags->publish(static_cast<std::size_t>(ctx.tb->id), iteration * kFlagStride + static_cast<std::uint64_t>(s) + 1);
        ctx.control->record_progress();
      }
    }
    ctx.status->awaited = static_cast<std::uint64_t>(call);
    ctx.status->blocked = Blocked::OnCallEnd;
    ctx.call_end->finish_call(static_cast<std::uint64_t>(call), [&ctx] { finish_average(ctx); });
    ctx.status->blocked = Blocked::Running;
  }
}

}  // namespace ccforge::executor::host
