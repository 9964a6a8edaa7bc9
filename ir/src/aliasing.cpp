#include "aliasing.hpp"

namespace ccforge::ir {

Aliasing inplace_aliasing(Collective c) {
  switch (c) {
    case Collective::AllReduce:
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::AllToAll: return Aliasing::OutputIsInput;
    case Collective::AllGather:
    case Collective::Gather: return Aliasing::InputInsideOutput;
    case Collective::ReduceScatter:
    case Collective::Scatter: return Aliasing::OutputInsideInput;
    default: return Aliasing::None;
  }
}

LogicalCounts logical_counts(const Algorithm& algo, const GpuProgram& gpu, bool inplace) {
  const int n = algo.ngpus;
  const int in = gpu.input_chunks;
  const int out = gpu.output_chunks;
  if (!inplace) return {in, out};
  switch (inplace_aliasing(algo.collective)) {
    case Aliasing::OutputIsInput: return {in, in};
    case Aliasing::InputInsideOutput: return {in > 0 ? in : out / n, out};
    case Aliasing::OutputInsideInput: return {in, out > 0 ? out : in / n};
    case Aliasing::None: break;
  }
  return {in, out};
}

Chunk physical_chunk(Aliasing aliasing, int rank, const LogicalCounts& counts, Chunk named) {
  switch (aliasing) {
    case Aliasing::OutputIsInput:
      if (named.buf == BufferKind::Output) return {BufferKind::Input, named.index};
      break;
    case Aliasing::InputInsideOutput:
      if (named.buf == BufferKind::Input) return {BufferKind::Output, rank * counts.input + named.index};
      break;
    case Aliasing::OutputInsideInput:
      if (named.buf == BufferKind::Output) return {BufferKind::Input, rank * counts.output + named.index};
      break;
    case Aliasing::None: break;
  }
  return named;
}

}  // namespace ccforge::ir
