// Recording half of AlgorithmBuilder: validates each call where the generator makes it.
#include <string>

#include "ccforge/ir/builder.hpp"

namespace ccforge::ir {
namespace {

std::string name(const ChunkRef& c) {
  return "rank " + std::to_string(c.rank) + " " + to_char(c.buf) + "[" + std::to_string(c.index) + ".." +
         std::to_string(c.index + c.count) + ")";
}

}  // namespace

AlgorithmBuilder::AlgorithmBuilder(BuilderSpec spec) : spec_(std::move(spec)) {
  if (spec_.ngpus < 1 || spec_.input_chunks < 0 || spec_.output_chunks < 0)
    throw DiagError(Diag{{"builder " + spec_.name, 0}, "ngpus must be >= 1 and chunk counts >= 0", "fix the BuilderSpec"});
}

void AlgorithmBuilder::copy(ChunkRef src, ChunkRef dst, int channel) { record(OpType::Copy, src, dst, channel, true); }
void AlgorithmBuilder::reduce(ChunkRef src, ChunkRef dst, int channel) { record(OpType::Reduce, src, dst, channel, true); }
void AlgorithmBuilder::send(ChunkRef src, ChunkRef dst, int channel) { record(OpType::Send, src, dst, channel, false); }
void AlgorithmBuilder::send_reduce(ChunkRef src, ChunkRef dst, int channel) { record(OpType::RecvReduceCopy, src, dst, channel, false); }

void AlgorithmBuilder::record(OpType kind, ChunkRef src, ChunkRef dst, int channel, bool local) {
  auto fail = [&](const std::string& problem, const char* fix) {
    throw DiagError(Diag{{"builder " + spec_.name, 0}, "op " + std::to_string(ops_.size()) + " (" + name(src) + " -> " + name(dst) + "): " + problem, fix});
  };
  for (const ChunkRef& c : {src, dst}) {
    if (c.rank < 0 || c.rank >= spec_.ngpus) fail("rank outside 0..ngpus-1", "use a rank of the algorithm");
    const int limit = c.buf == BufferKind::Input ? spec_.input_chunks : c.buf == BufferKind::Output ? spec_.output_chunks : -1;
    if (c.index < 0 || c.count < 1 || (limit >= 0 && c.index + c.count > limit))
      fail("chunk run outside the buffer", "stay within BuilderSpec input_chunks/output_chunks");
  }
  if (src.count != dst.count) fail("source and destination differ in length", "use runs of equal count");
  if (local != (src.rank == dst.rank)) fail(local ? "copy/reduce must stay on one rank" : "send needs two different ranks", "use send for transfers, copy/reduce locally");
  if (channel < (local ? -1 : 0)) fail("negative channel", local ? "use channel >= 0, or -1 to let build() choose" : "use channel >= 0");
  ops_.push_back(Op{kind, src, dst, channel});
}

}  // namespace ccforge::ir
