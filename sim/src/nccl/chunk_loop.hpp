// The chunk loop every pipelined NCCL algorithm runs per channel (ring, chain, tree): the channel's
// bytes cut into chunks, the last one possibly partial. Lowered cut short (its first n - 1 chunks and
// its last), each chunk of every channel together, the chunks form the repeated blocks that
// run_extrapolated (engine.hpp) adds in closed form once the run provably repeats.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "lowering.hpp"

namespace ccforge::sim::nccl {

inline constexpr std::uint64_t kAllChunks = std::numeric_limits<std::uint64_t>::max();

struct ChunkLoop {
  std::uint64_t count = 0;
  double full = 0.0;  // every chunk but the last
  double last = 0.0;
};

// As NCCL's device loop cuts `bytes` (`chunk = min(chunk_bytes, remaining)`), with the same double
// arithmetic the chunk-by-chunk lowering used, so the last chunk's bytes are those of the full loop.
inline ChunkLoop chunk_loop(double bytes, double chunk_bytes) {
  ChunkLoop loop;
  loop.full = chunk_bytes;
  double remaining = bytes;
  while (remaining > 0.0) {
    loop.last = std::min(chunk_bytes, remaining);
    remaining -= loop.last;
    ++loop.count;
  }
  return loop;
}

// NCCL's "Optimize chunkSize / nSteps" (src/enqueue.cc): for each (fewer_than, above) in turn, halve
// `chunk` while a channel of a `bytes` call on `nchannels` channels would get fewer than `fewer_than`
// whole chunks and the chunk is still above `above` bytes.
struct ChunkHalving {
  double fewer_than;
  double above;
};
inline double halved_chunk(double bytes, int nchannels, double chunk, std::initializer_list<ChunkHalving> rules) {
  for (const ChunkHalving& r : rules)
    while (std::floor(bytes / (nchannels * chunk)) < r.fewer_than && chunk > r.above) chunk /= 2;
  return chunk;
}

// Calls `lower_chunk(bytes)` for the loop's first `lowered` - 1 chunks and its last one (every chunk
// when `lowered` >= count); each call lowers that chunk for every channel. When cut short, the chunks
// become a loop run to find a period (TaskGraph::fold_into_loop, set_run); should they not fold (tasks
// before the loop, or chunks that differ), the graph runs as built and run_extrapolated goes on to the
// full run.
template <class LowerChunk>
void lower_chunk_loop(Lowering& low, const ChunkLoop& loop, std::uint64_t lowered, LowerChunk&& lower_chunk) {
  const std::uint64_t n = std::min(lowered, loop.count);
  const bool starts_the_graph = low.graph().size() == 0;
  for (std::uint64_t k = 0; k < n; ++k) lower_chunk(k + 1 < n ? loop.full : loop.last);
  if (n == loop.count || n == 0 || !starts_the_graph) return;
  const auto blocks = static_cast<std::uint32_t>(n);
  if (low.graph().fold_into_loop(blocks, blocks)) low.graph().set_run(blocks, true);
}

}  // namespace ccforge::sim::nccl
