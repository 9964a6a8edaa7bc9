// Chunk-level builder used by search generators: describe data movement ("rank 3 sends input chunk 5 to
// rank 4's output chunk 5 on channel 1, reducing"), and build() allocates threadblocks and steps,
// inserts dependencies (read-after-write, write-after-read, write-after-write on every chunk), nops and
// hasdep flags, and fuses receive+send pairs into rcs/rrs/rrcs, as MSCCLang's compiler does.
#pragma once

#include <string>
#include <vector>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

// A run of `count` consecutive chunks of one buffer on one rank.
struct ChunkRef {
  int rank = 0;
  BufferKind buf = BufferKind::Input;
  int index = 0;
  int count = 1;
};

struct BuilderSpec {
  std::string name;
  Collective collective = Collective::AllReduce;
  int ngpus = 0;
  Protocol protocol = Protocol::Simple;
  int input_chunks = 1;   // per rank, as the generator addresses the input buffer
  int output_chunks = 1;  // per rank, as the generator addresses the output buffer
  // In-place: the generator still writes in terms of input and output; build() maps output onto input
  // following the executor's aliasing (allreduce/broadcast/reduce/alltoall: o == i; allgather/gather:
  // input chunk k of rank r is output chunk r*input_chunks+k; reducescatter/scatter: the reverse).
  bool inplace = false;
  // With inplace = false: the generator wrote the program for an in-place call, and build() derives the
  // out-of-place algorithm from it (reads from the input until a chunk is first written, results in
  // the output, the input never written; builder_outofplace.cpp). No effect for alltoall (no aliasing).
  bool derive_outofplace = false;
};

class AlgorithmBuilder {
 public:
  explicit AlgorithmBuilder(BuilderSpec spec);

  // Local ops on src.rank == dst.rank. They run on the local tb of `channel`; by default (-1) on that
  // of the channel whose transfer next uses the result (channel 0 when none does). Pinning lets a
  // generator spread independent local work (a one-shot allreduce's final reductions) over tbs.
  void copy(ChunkRef src, ChunkRef dst, int channel = -1);    // dst := src            (cpy)
  void reduce(ChunkRef src, ChunkRef dst, int channel = -1);  // dst := dst (+) src    (re)

  // Cross-rank ops (src.rank != dst.rank) over the connection (src.rank -> dst.rank, channel).
  // Program order (the order of calls) is the order of data dependencies on each chunk and the FIFO
  // order on each connection.
  void send(ChunkRef src, ChunkRef dst, int channel = 0);         // dst := src          (s + r)
  void send_reduce(ChunkRef src, ChunkRef dst, int channel = 0);  // dst := dst (+) src  (s + rrc)

  // Scratch chunks are allocated on demand: any index used on BufferKind::Scratch grows s_chunks.

  // Produces the executor-ready algorithm. Throws DiagError when the result would break an executor
  // limit (steps per tb, tbs per channel, channels, cnt) naming the limit and how to stay within it.
  Algorithm build() const;

 private:
  void record(OpType kind, ChunkRef src, ChunkRef dst, int channel, bool local);

  struct Op {
    OpType kind;  // Copy, Reduce, Send (plain transfer) or RecvReduceCopy (reducing transfer)
    ChunkRef src;
    ChunkRef dst;
    int channel;
  };
  BuilderSpec spec_;
  std::vector<Op> ops_;
};

}  // namespace ccforge::ir
