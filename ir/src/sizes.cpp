// The size conventions of ir.hpp: nccl-tests sizes, the executor's nBytes and buffer chunk counts
// (formats.md §1.7, §2.1; nccl-tests src/*.cu getCollByteCount).
#include <algorithm>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

namespace {

bool size_is_total(Collective c) {
  using enum Collective;
  return c == AllGather || c == ReduceScatter || c == AllToAll || c == Gather || c == Scatter;
}

}  // namespace

int ranks_in_size(Collective c, int ngpus) { return size_is_total(c) ? ngpus : 1; }

ByteCount count_bytes(Collective c, int ngpus, ByteCount size) {
  return size / static_cast<ByteCount>(ranks_in_size(c, ngpus));
}

// size x sizeMultiplier / ranks: exact wherever the size is the executor's nBytes already.
ByteCount executor_bytes(Collective c, int ngpus, ByteCount size) {
  return size * static_cast<ByteCount>(size_multiplier(c, ngpus)) / static_cast<ByteCount>(ranks_in_size(c, ngpus));
}

ByteCount executor_bytes_at_least(Collective c, int ngpus, ByteCount size) {
  const auto ranks = static_cast<ByteCount>(ranks_in_size(c, ngpus));
  return (size * static_cast<ByteCount>(size_multiplier(c, ngpus)) + ranks - 1) / ranks;
}

std::optional<ExecutorBuffers> executor_buffers(Collective c, int ngpus, int nchunksperloop) {
  using enum Collective;
  if (ngpus < 1 || nchunksperloop < 1) return std::nullopt;
  const std::int64_t n = nchunksperloop, p = ngpus;
  switch (c) {
    case AllReduce:
    case Broadcast:
    case Reduce:
    case AllToAll: return ExecutorBuffers{n, n};
    case AllGather:
      if (n % p != 0) return std::nullopt;
      return ExecutorBuffers{n / p, n};
    case ReduceScatter:
      if (n % p != 0) return std::nullopt;
      return ExecutorBuffers{n, n / p};
    case Gather: return ExecutorBuffers{n, p * n};
    case Scatter: return ExecutorBuffers{p * n, n};
    case Send:
    case Recv:
    case AllToAllV: break;
  }
  return std::nullopt;
}

int chunks_per_loop(Collective c, int input_chunks, int output_chunks) {
  if (c == Collective::Gather) return input_chunks;
  if (c == Collective::Scatter) return output_chunks;
  return std::max(input_chunks, output_chunks);
}

}  // namespace ccforge::ir
