// The executor's run-time arithmetic (formats.md §1.7) and the structural checks msccl-executor-nccl's
// parser makes before it runs anything (formats.md §1.2), shared by both backends. The runtime's
// constants (tiles, slots, limits, op traits) are ir's: ccforge/ir/executor_facts.hpp.
#pragma once

#include <cstddef>
#include <vector>

#include "ccforge/executor/executor.hpp"

namespace ccforge::executor {

struct ChunkPlan {
  std::size_t elem_bytes = 0;
  std::size_t chunk_elems = 0;  // sizePerMscclChunk
  std::size_t tile_elems = 0;   // elements of each chunk handled per iteration
  std::size_t iterations = 0;   // ceil(chunk_elems / tile_elems)
  int max_allowed_count = 1;    // chunks one primitive call may carry (formats.md §1.7)
};

// Throws DiagError when why_not_runnable() objects.
ChunkPlan plan_chunks(const ir::Algorithm& algo, const CallSpec& call);

// Rejects, with the step's file and line, what the executor's parser rejects or could not run:
// rank count, tb peers and channels, buffer bounds of every step for this call, dependency targets,
// and ops whose tb lacks the peer they need.
void check_runnable(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan);

}  // namespace ccforge::executor

namespace ccforge::executor {

// Rejects rank buffers that do not match buffer_layout() for this call (a caller's mistake).
void check_buffers(const ir::Algorithm& algo, const CallSpec& call, const std::vector<RankBuffers>& buffers);

// Elements of a rank's buffer of `kind` for this call.
std::size_t buffer_elems(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan, int rank,
                         ir::BufferKind kind);

}  // namespace ccforge::executor
