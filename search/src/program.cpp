#include "program.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/core.h>

#include "ccforge/common/diag.hpp"

namespace ccforge::search {

namespace {

// Buffers holding one block per rank (allgather output, alltoall both, ...): instances replicate each
// block, so a rank's chunks stay contiguous, matching the executor's in-place aliasing.
bool buffer_is_per_rank(ir::Collective coll, ir::BufferKind buf) {
  using C = ir::Collective;
  if (buf == ir::BufferKind::Input) return coll == C::ReduceScatter || coll == C::AllToAll || coll == C::Scatter;
  if (buf == ir::BufferKind::Output) return coll == C::AllGather || coll == C::AllToAll || coll == C::Gather;
  return false;
}

[[noreturn]] void fail_screened(const std::string& name, std::string problem, std::string fix) {
  throw DiagError(Diag{{"screen " + name, 0}, std::move(problem), std::move(fix)});
}

}  // namespace

Program::Program(const GenRequest& req, std::string name, int input_chunks, int output_chunks, bool inplace,
                 std::size_t first_scan)
    : req_(req), next_scan_(first_scan) {
  spec_.name = std::move(name);
  spec_.collective = req.collective;
  spec_.ngpus = req.ngpus;
  spec_.protocol = req.protocol;
  spec_.input_chunks = input_chunks;
  spec_.output_chunks = output_chunks;
  // Generators write for an in-place call (or, alltoall, out-of-place only); an out-of-place request
  // derives its program from the in-place one.
  spec_.inplace = inplace && req.inplace;
  spec_.derive_outofplace = inplace && !req.inplace;
}

int Program::Layout::block_size(ir::BufferKind buf) const {
  switch (buf) {
    case ir::BufferKind::Input: return input_block;
    case ir::BufferKind::Output: return output_block;
    case ir::BufferKind::Scratch: return scratch_block;
  }
  return 1;
}

Program::Layout Program::layout() const {
  int scratch_most = 0;
  int channel_most = 0;
  for (const Op& op : ops_) {
    for (const ir::ChunkRef& ref : {op.src, op.dst}) {
      if (ref.buf == ir::BufferKind::Scratch) scratch_most = std::max(scratch_most, ref.index + ref.count);
    }
    channel_most = std::max(channel_most, op.channel + 1);
  }
  auto per_rank_block = [&](ir::BufferKind buf, int chunks) {
    return buffer_is_per_rank(spec_.collective, buf) ? chunks / spec_.ngpus : chunks;
  };
  return {per_rank_block(ir::BufferKind::Input, spec_.input_chunks),
          per_rank_block(ir::BufferKind::Output, spec_.output_chunks), std::max(scratch_most, 1), channel_most};
}

// Instance i owns the i-th copy of every block: chunk b*B+k maps to b*B*I + i*B + k. A run that crosses
// a block boundary is split so that each piece stays contiguous.
template <typename Piece>
void Program::for_each_piece(const Layout& layout, const Op& op, int instance, Piece&& piece) const {
  const int instances = req_.instances;
  const int channel = op.channel < 0 ? -1 : op.channel + instance * layout.channels;
  int done = 0;
  while (done < op.src.count) {
    auto map = [&](const ir::ChunkRef& ref) {
      const int bsize = layout.block_size(ref.buf);
      const int index = ref.index + done;
      const int block = index / bsize;
      const int left_in_block = bsize - index % bsize;
      ir::ChunkRef mapped{ref.rank, ref.buf, block * bsize * instances + instance * bsize + index % bsize, 0};
      return std::pair{mapped, left_in_block};
    };
    auto [src, src_left] = map(op.src);
    auto [dst, dst_left] = map(op.dst);
    const int n = std::min({op.src.count - done, src_left, dst_left});
    src.count = dst.count = n;
    piece(src, dst, channel);
    done += n;
  }
}

void Program::emit(ir::AlgorithmBuilder& builder, const Layout& layout, const Op& op, int instance) const {
  for_each_piece(layout, op, instance, [&](const ir::ChunkRef& src, const ir::ChunkRef& dst, int channel) {
    switch (op.kind) {
      case Kind::Copy: builder.copy(src, dst, channel); break;
      case Kind::Reduce: builder.reduce(src, dst, channel); break;
      case Kind::Send: builder.send(src, dst, channel); break;
      case Kind::SendReduce: builder.send_reduce(src, dst, channel); break;
    }
  });
}

// Two limits the pieces decide before any tb exists, so that a large program the executor would refuse
// is not built first (at 1024 ranks such builds took 7-45 s and 1-1.5 GB each): every piece becomes a
// step with its count (the builder neither splits nor merges them; the checker's limit.count), and a
// connection (src, dst, channel) is one tb on each side (ir builder_plan: a connection joins at most one
// fused pair; the checker's connection rule: one tb per peer, channel and direction), so all its pieces
// are steps of that one tb (the builder's steps-per-tb limit). Only certain refusals: local ops, whose tb the builder picks, are
// left to the builder.
void Program::screen(const Layout& layout) const {
  const ir::Limits limits;
  std::map<std::tuple<int, int, int>, int> pieces;  // per connection (src, dst, channel)
  for (int i = 0; i < req_.instances; ++i)
    for (const Op& op : ops_)
      for_each_piece(layout, op, i, [&](const ir::ChunkRef& src, const ir::ChunkRef& dst, int channel) {
        if (src.count > limits.max_count)
          fail_screened(spec_.name, fmt::format("rank {} moves {} chunks in one step, more than MSCCL_MAX_COUNT-1={}", src.rank, src.count,
                                    limits.max_count),
                        "use smaller chunk runs");
        if (op.kind != Kind::Send && op.kind != Kind::SendReduce) return;
        const int n = ++pieces[{src.rank, dst.rank, channel}];
        if (n > limits.max_steps_per_tb)
          fail_screened(spec_.name, fmt::format("rank {} sends more than {} pieces to rank {} on channel {}, each a step of the one tb of that "
                                    "connection, more than MSCCL_MAX_NUM_STEPS={}",
                                    src.rank, limits.max_steps_per_tb, dst.rank, channel, limits.max_steps_per_tb),
                        "spread the transfers over more channels or use larger chunk runs");
      });
}

void Program::record(const Op& op) {
  ops_.push_back(op);
  if (ops_.size() < next_scan_) return;
  next_scan_ *= 2;
  scan_recorded();
}

// A certain refusal of screen(): instance 0 puts each transfer op on its own channel, at least one
// piece each, so more ops than steps per tb on one connection are more pieces than that tb may hold.
void Program::scan_recorded() const {
  const ir::Limits limits;
  std::map<std::tuple<int, int, int>, int> transfers;  // per connection (src, dst, channel)
  for (const Op& op : ops_) {
    if (op.kind != Kind::Send && op.kind != Kind::SendReduce) continue;
    if (++transfers[{op.src.rank, op.dst.rank, op.channel}] > limits.max_steps_per_tb)
      fail_screened(spec_.name, fmt::format("rank {} sends more than {} transfers to rank {} on channel {} (found after {} recorded ops), "
                                            "each a step of the one tb of that connection, more than MSCCL_MAX_NUM_STEPS={}",
                                            op.src.rank, limits.max_steps_per_tb, op.dst.rank, op.channel, ops_.size(),
                                            limits.max_steps_per_tb),
                    "spread the transfers over more channels or use larger chunk runs");
  }
}

ir::Algorithm Program::materialize() const {
  ir::BuilderSpec spec = spec_;
  spec.input_chunks *= req_.instances;
  spec.output_chunks *= req_.instances;
  const Layout facts = layout();
  screen(facts);
  ir::AlgorithmBuilder builder(spec);
  // Instance-major order keeps each instance's program order intact on its own channels.
  for (int i = 0; i < req_.instances; ++i) {
    for (const Op& op : ops_) emit(builder, facts, op, i);
  }
  return builder.build();
}

std::string candidate_name(std::string_view generator, const GenRequest& req) {
  const std::string spread = req.spread > 1 ? fmt::format("_s{}", req.spread) : "";
  return fmt::format("{}{}_c{}_i{}_k{}_{}", generator, spread, req.channels, req.instances, req.chunks,
                     ir::to_string(req.protocol));
}

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

Support need(bool condition, std::string why_not) { return condition ? Support{} : Support{std::move(why_not)}; }

}  // namespace ccforge::search
