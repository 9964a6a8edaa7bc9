#include "program.hpp"

#include <algorithm>

#include <fmt/core.h>

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

}  // namespace

Program::Program(const GenRequest& req, std::string name, int input_chunks, int output_chunks, bool inplace)
    : req_(req) {
  spec_.name = std::move(name);
  spec_.collective = req.collective;
  spec_.ngpus = req.ngpus;
  spec_.protocol = req.protocol;
  spec_.input_chunks = input_chunks;
  spec_.output_chunks = output_chunks;
  spec_.inplace = inplace;
}

int Program::block_size(ir::BufferKind buf) const {
  switch (buf) {
    case ir::BufferKind::Input:
      return buffer_is_per_rank(spec_.collective, buf) ? spec_.input_chunks / spec_.ngpus : spec_.input_chunks;
    case ir::BufferKind::Output:
      return buffer_is_per_rank(spec_.collective, buf) ? spec_.output_chunks / spec_.ngpus : spec_.output_chunks;
    case ir::BufferKind::Scratch:
      return scratch_chunks();
  }
  return 1;
}

int Program::scratch_chunks() const {
  int most = 0;
  for (const Op& op : ops_) {
    for (const ir::ChunkRef& ref : {op.src, op.dst}) {
      if (ref.buf == ir::BufferKind::Scratch) most = std::max(most, ref.index + ref.count);
    }
  }
  return std::max(most, 1);
}

int Program::channels_used() const {
  int most = 0;
  for (const Op& op : ops_) most = std::max(most, op.channel + 1);
  return most;
}

// Instance i owns the i-th copy of every block: chunk b*B+k maps to b*B*I + i*B + k. A run that crosses
// a block boundary is split so that each piece stays contiguous.
void Program::emit(ir::AlgorithmBuilder& builder, const Op& op, int instance) const {
  const int instances = req_.instances;
  const int channel = op.channel < 0 ? -1 : op.channel + instance * channels_used();
  int done = 0;
  while (done < op.src.count) {
    auto map = [&](const ir::ChunkRef& ref) {
      const int bsize = block_size(ref.buf);
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
    switch (op.kind) {
      case Kind::Copy: builder.copy(src, dst, channel); break;
      case Kind::Reduce: builder.reduce(src, dst, channel); break;
      case Kind::Send: builder.send(src, dst, channel); break;
      case Kind::SendReduce: builder.send_reduce(src, dst, channel); break;
    }
    done += n;
  }
}

ir::Algorithm Program::materialize() const {
  ir::BuilderSpec spec = spec_;
  spec.input_chunks *= req_.instances;
  spec.output_chunks *= req_.instances;
  ir::AlgorithmBuilder builder(spec);
  // Instance-major order keeps each instance's program order intact on its own channels.
  for (int i = 0; i < req_.instances; ++i) {
    for (const Op& op : ops_) emit(builder, op, i);
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
