#include "buffer_space.hpp"

#include "op_traits.hpp"

namespace ccforge::ir {

BufferSpace::BufferSpace(const Algorithm& algo, bool inplace)
    : algo_(algo), aliasing_(inplace ? inplace_aliasing(algo.collective) : Aliasing::None) {
  for (const GpuProgram& gpu : algo.gpus) {
    counts_.push_back(logical_counts(algo, gpu, inplace));
    base_.push_back(total_);
    total_ += gpu.input_chunks + gpu.output_chunks + gpu.scratch_chunks;
  }
}

int BufferSpace::chunks(int rank) const {
  const GpuProgram& gpu = algo_.gpus[static_cast<std::size_t>(rank)];
  return gpu.input_chunks + gpu.output_chunks + gpu.scratch_chunks;
}

int BufferSpace::locate(int rank, BufferKind buf, int index) const {
  const GpuProgram& gpu = algo_.gpus[static_cast<std::size_t>(rank)];
  const Chunk c = physical_chunk(aliasing_, rank, counts(rank), {buf, index});
  if (c.index < 0 || c.index >= chunks_of(gpu, c.buf)) return -1;
  int offset = c.index;
  if (c.buf != BufferKind::Input) offset += gpu.input_chunks;
  if (c.buf == BufferKind::Scratch) offset += gpu.output_chunks;
  return base_[static_cast<std::size_t>(rank)] + offset;
}

}  // namespace ccforge::ir
