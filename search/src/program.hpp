// A generator's ops for one instance, in chunk terms, before replication: generators write here, and
// materialize() replicates the program over `instances` (fresh channels, chunks batched per block, as
// msccl-tools' instances do) and feeds the result to ir::AlgorithmBuilder.
#pragma once

#include <cstddef>
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
  // `first_scan`: ops recorded before the first early scan (record()). The default, 2^24 (~0.9 GB of
  // ops), is above what programs of the bundled topologies up to ndv5-x128 (1,024 ranks) record (a
  // ring allreduce there: ~2 x 10^6), so only larger clusters meet the scan (ndv5-x2048's
  // hierarchical allgather records ~2.4 x 10^8 ops, ~13 GB, before screen() could refuse it).
  static constexpr std::size_t kFirstScan = std::size_t{1} << 24;
  Program(const GenRequest& req, std::string name, int input_chunks, int output_chunks, bool inplace,
          std::size_t first_scan = kFirstScan);

  // Local ops: channel -1 lets the builder place them (ir::AlgorithmBuilder::copy), >= 0 pins them.
  void copy(ir::ChunkRef src, ir::ChunkRef dst, int channel = -1) { record({Kind::Copy, src, dst, channel}); }
  void reduce(ir::ChunkRef src, ir::ChunkRef dst, int channel = -1) { record({Kind::Reduce, src, dst, channel}); }
  void send(ir::ChunkRef src, ir::ChunkRef dst, int channel) { record({Kind::Send, src, dst, channel}); }
  void send_reduce(ir::ChunkRef src, ir::ChunkRef dst, int channel) { record({Kind::SendReduce, src, dst, channel}); }

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
  // Appends an op. Each time the ops reach the next scan mark (doubling), refuses the program if one
  // connection already has more transfers than a tb has steps, before the rest is recorded.
  void record(const Op& op);
  void scan_recorded() const;

  GenRequest req_;
  ir::BuilderSpec spec_;
  std::vector<Op> ops_;
  std::size_t next_scan_;
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
