// In-place buffer aliasing as the executor defines it (formats.md §1.8, §2.1): an in-place call
// passes one buffer, so a step's 'i' or 'o' chunk may be the same memory as a chunk of the other.
//   allreduce, broadcast, reduce, alltoall: sendbuff == recvbuff, so o[k] is i[k];
//   allgather, gather: sendbuff == recvbuff + rank*count, so i[k] of rank r is o[r*c + k], c = input chunks;
//   reducescatter, scatter: recvbuff == sendbuff + rank*count, so o[k] of rank r is i[r*c + k], c = output chunks.
#pragma once

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

enum class Aliasing { None, OutputIsInput, InputInsideOutput, OutputInsideInput };

Aliasing inplace_aliasing(Collective c);

struct Chunk {
  BufferKind buf;
  int index;
};

// Chunk counts of one rank as the collective's postcondition sees them (input and output per rank).
struct LogicalCounts {
  int input = 0;
  int output = 0;
};

LogicalCounts logical_counts(const Algorithm& algo, const GpuProgram& gpu, bool inplace);

// The memory a step's (buf, index) names on `rank` when the call is in-place (identity otherwise).
Chunk physical_chunk(Aliasing aliasing, int rank, const LogicalCounts& counts, Chunk named);

}  // namespace ccforge::ir
