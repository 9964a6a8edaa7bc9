// The executor's per-protocol and per-op facts (executor_facts.hpp cites their sources).
#include "ccforge/ir/executor_facts.hpp"

#include "ccforge/ir/ir.hpp"

#include <algorithm>

namespace ccforge::ir {

ByteCount step_bytes(Protocol p) {
  switch (p) {
    case Protocol::Simple: return kSimpleBufferBytes / kNcclSteps;
    case Protocol::LL: return kLLBufferBytes / kNcclSteps / 2;
    case Protocol::LL128: return kLL128BufferBytes / kNcclSteps / 16 * 15;
  }
  return kSimpleBufferBytes / kNcclSteps;
}

int steps_per_tile(Protocol p) { return p == Protocol::Simple ? kMscclChunkSteps : 1; }

ByteCount tile_bytes(Protocol p) { return step_bytes(p) * static_cast<ByteCount>(steps_per_tile(p)); }

int max_allowed_count(Protocol p, ByteCount chunk_bytes) {
  const ByteCount per_call = chunk_bytes == 0 ? tile_bytes(p) : tile_bytes(p) / chunk_bytes;
  return static_cast<int>(std::clamp<ByteCount>(per_call, 1, Limits{}.max_count));
}

int size_multiplier(Collective c, int ngpus) {
  const bool whole_buffer = c == Collective::AllGather || c == Collective::ReduceScatter || c == Collective::AllToAll;
  return whole_buffer ? ngpus : 1;
}

OpTraits traits(OpType t) {
  switch (t) {
    case OpType::Send: return {true, false, true, false, false, false, true, false};
    case OpType::Recv: return {false, true, false, true, false, false, false, true};
    case OpType::RecvCopySend: return {true, true, false, true, false, false, false, true};
    case OpType::RecvReduceSend: return {true, true, true, false, false, true, true, false};
    case OpType::RecvReduceCopy: return {false, true, true, true, false, true, false, false};
    case OpType::RecvReduceCopySend: return {true, true, true, true, false, true, true, true};
    case OpType::Copy: return {false, false, true, true, false, false, true, true};
    case OpType::Reduce: return {false, false, true, true, true, true, true, true};
    case OpType::Nop: return {false, false, false, false, false, false, false, false};
  }
  return {};
}

bool op_sends(OpType t) { return traits(t).sends; }
bool op_receives(OpType t) { return traits(t).receives; }

}  // namespace ccforge::ir
