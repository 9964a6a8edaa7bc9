// A generator's ops for one instance, in chunk terms, before replication: generators write here, and
// materialize() replicates the program over `instances` (fresh channels, chunks batched per block, as
// msccl-tools' instances do) and feeds the result to ir::AlgorithmBuilder.
#pragma once

#include <string>
#include <vector>

#include "ccforge/ir/builder.hpp"
#include "ccforge/search/search.hpp"

namespace ccforge::search {

class Program {
 public:
  // input_chunks/output_chunks are per rank for one instance, as ir::BuilderSpec counts them.
  // `inplace`: the program is written for an in-place call; req.inplace = false then derives the
  // out-of-place algorithm from it (ir::BuilderSpec::derive_outofplace).
  Program(const GenRequest& req, std::string name, int input_chunks, int output_chunks, bool inplace);

  // Local ops: channel -1 lets the builder place them (ir::AlgorithmBuilder::copy), >= 0 pins them.
  void copy(ir::ChunkRef src, ir::ChunkRef dst, int channel = -1) { ops_.push_back({Kind::Copy, src, dst, channel}); }
  void reduce(ir::ChunkRef src, ir::ChunkRef dst, int channel = -1) { ops_.push_back({Kind::Reduce, src, dst, channel}); }
  void send(ir::ChunkRef src, ir::ChunkRef dst, int channel) { ops_.push_back({Kind::Send, src, dst, channel}); }
  void send_reduce(ir::ChunkRef src, ir::ChunkRef dst, int channel) {
    ops_.push_back({Kind::SendReduce, src, dst, channel});
  }

  ir::Algorithm materialize() const;

 private:
  enum class Kind { Copy, Reduce, Send, SendReduce };
  struct Op {
    Kind kind;
    ir::ChunkRef src;
    ir::ChunkRef dst;
    int channel;
  };
  // Per-program facts emit() needs for every op, computed once: rescanning all ops per op made
  // materialize() quadratic (128-rank candidates have ~10^5 ops).
  struct Layout {
    int input_block;
    int output_block;
    int scratch_block;
    int channels;
    int block_size(ir::BufferKind buf) const;
  };
  Layout layout() const;
  // Calls piece(src, dst, channel) for each contiguous piece `op` becomes in `instance`.
  template <typename Piece>
  void for_each_piece(const Layout& layout, const Op& op, int instance, Piece&& piece) const;
  void emit(ir::AlgorithmBuilder& builder, const Layout& layout, const Op& op, int instance) const;
  // Throws the builder's kind of DiagError when the pieces alone break an executor limit.
  void screen(const Layout& layout) const;

  GenRequest req_;
  ir::BuilderSpec spec_;
  std::vector<Op> ops_;
};

// Short helpers for generator code.
inline ir::ChunkRef in(int rank, int index, int count = 1) { return {rank, ir::BufferKind::Input, index, count}; }
inline ir::ChunkRef out(int rank, int index, int count = 1) { return {rank, ir::BufferKind::Output, index, count}; }
inline ir::ChunkRef scratch(int rank, int index, int count = 1) { return {rank, ir::BufferKind::Scratch, index, count}; }

// "ring", "LL128", channels 2, instances 4 -> "ring_c2_i4_k1_LL128" (spread 4: "ring_s4_c2_..."):
// names say how they were made.
std::string candidate_name(std::string_view generator, const GenRequest& req);

bool is_power_of_two(int n);
Support need(bool condition, std::string why_not);  // ok when condition holds

}  // namespace ccforge::search
