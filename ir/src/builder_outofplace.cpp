// An out-of-place program derived from one written for an in-place call (BuilderSpec::derive_outofplace).
// The in-place program works on one buffer P (the executor's aliasing, aliasing.hpp). Out of place,
// the user's input must stay untouched and the results must land in the output buffer, so each chunk
// of P is read from the input until it is first written, and written (and afterwards read) at its
// place in the output, or in scratch where P reaches beyond the output (a reducescatter's other
// blocks). A reduction into a chunk not yet written first copies the input's value there, and output
// chunks the program never writes (an allgather's own block, a broadcast root's buffer) are copied
// from the input at the end. The checker proves the result like any other program.
#include "builder_outofplace.hpp"

#include <algorithm>
#include <optional>

#include "aliasing.hpp"

namespace ccforge::ir {
namespace {

constexpr int kLongestCopy = 64;  // chunks per copy step, within MSCCL_MAX_COUNT

class Relocation {
 public:
  Relocation(const BuilderSpec& spec, int program_scratch)
      : spec_(spec), aliasing_(inplace_aliasing(spec.collective)), scratch_base_(program_scratch) {
    const bool p_is_output = aliasing_ == Aliasing::InputInsideOutput;
    p_chunks_ = p_is_output ? spec.output_chunks : spec.input_chunks;
    written_.assign(static_cast<std::size_t>(spec.ngpus), std::vector<char>(static_cast<std::size_t>(p_chunks_), 0));
  }

  std::vector<PlannedOp> run(const std::vector<PlannedOp>& recorded) {
    for (const PlannedOp& op : recorded) relocate(op);
    copy_unwritten_outputs();
    return out_;
  }

 private:
  // Position in P of a logical chunk; nullopt for scratch.
  std::optional<int> position(int rank, BufferKind buf, int index) const {
    if (buf == BufferKind::Scratch) return std::nullopt;
    return physical_chunk(aliasing_, rank, {spec_.input_chunks, spec_.output_chunks}, {buf, index}).index;
  }
  bool own_block(int rank, int pos, int block) const { return pos >= rank * block && pos < (rank + 1) * block; }

  // Where P's chunk lives once written.
  Chunk target(int rank, int pos) const {
    if (aliasing_ == Aliasing::OutputInsideInput)
      return own_block(rank, pos, spec_.output_chunks) ? Chunk{BufferKind::Output, pos - rank * spec_.output_chunks}
                                                       : Chunk{BufferKind::Scratch, scratch_base_ + pos};
    return {BufferKind::Output, pos};
  }
  // Where P's chunk is before anything writes it: the caller's input; nullopt where P starts undefined.
  std::optional<Chunk> source(int rank, int pos) const {
    if (aliasing_ != Aliasing::InputInsideOutput) return Chunk{BufferKind::Input, pos};
    if (own_block(rank, pos, spec_.input_chunks)) return Chunk{BufferKind::Input, pos - rank * spec_.input_chunks};
    return std::nullopt;
  }
  char& written(int rank, int pos) { return written_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(pos)]; }
  Chunk read_at(int rank, int pos) {
    if (written(rank, pos)) return target(rank, pos);
    return source(rank, pos).value_or(target(rank, pos));
  }

  struct Piece {
    Chunk src, dst;
    bool copy_first = false;  // reduce into a chunk not yet written: its input value goes there first
    std::optional<Chunk> first_from;
  };

  Piece piece(const PlannedOp& op, int k) {
    Piece p;
    const auto s = position(op.src.rank, op.src.buf, op.src.index + k);
    p.src = s ? read_at(op.src.rank, *s) : Chunk{BufferKind::Scratch, op.src.index + k};
    const auto d = position(op.dst.rank, op.dst.buf, op.dst.index + k);
    if (!d) {
      p.dst = {BufferKind::Scratch, op.dst.index + k};
      return p;
    }
    p.dst = target(op.dst.rank, *d);
    const bool reduces = op.kind == OpType::Reduce || op.kind == OpType::RecvReduceCopy;
    if (reduces && !written(op.dst.rank, *d)) {
      p.first_from = source(op.dst.rank, *d);
      p.copy_first = p.first_from.has_value();
    }
    return p;
  }

  static bool follows(const Chunk& a, const Chunk& b) { return a.buf == b.buf && b.index == a.index + 1; }
  static bool continues(const Piece& a, const Piece& b) {
    return follows(a.src, b.src) && follows(a.dst, b.dst) && a.copy_first == b.copy_first &&
           (!a.copy_first || follows(*a.first_from, *b.first_from));
  }

  void emit(const PlannedOp& op, const Piece& first, int count) {
    if (first.copy_first)
      out_.push_back(PlannedOp{OpType::Copy, {op.dst.rank, first.first_from->buf, first.first_from->index, count},
                               {op.dst.rank, first.dst.buf, first.dst.index, count}, -1});
    out_.push_back(PlannedOp{op.kind, {op.src.rank, first.src.buf, first.src.index, count},
                             {op.dst.rank, first.dst.buf, first.dst.index, count}, op.channel});
  }

  // Splits the op where the relocated chunks stop being contiguous, then marks its destination written.
  void relocate(const PlannedOp& op) {
    std::vector<Piece> pieces;
    for (int k = 0; k < op.src.count; ++k) pieces.push_back(piece(op, k));
    for (std::size_t begin = 0; begin < pieces.size();) {
      std::size_t end = begin + 1;
      while (end < pieces.size() && continues(pieces[end - 1], pieces[end])) ++end;
      emit(op, pieces[begin], static_cast<int>(end - begin));
      begin = end;
    }
    for (int k = 0; k < op.dst.count; ++k)
      if (const auto d = position(op.dst.rank, op.dst.buf, op.dst.index + k)) written(op.dst.rank, *d) = 1;
  }

  void copy_unwritten_outputs() {
    for (int rank = 0; rank < spec_.ngpus; ++rank)
      for (int pos = 0; pos < p_chunks_;) {
        const auto from = source(rank, pos);
        if (written(rank, pos) || !from || target(rank, pos).buf != BufferKind::Output) {
          ++pos;
          continue;
        }
        int count = 1;
        while (count < kLongestCopy && pos + count < p_chunks_ && !written(rank, pos + count) && source(rank, pos + count) &&
               target(rank, pos + count).buf == BufferKind::Output)
          ++count;
        const Chunk to = target(rank, pos);
        out_.push_back(PlannedOp{OpType::Copy, {rank, from->buf, from->index, count}, {rank, to.buf, to.index, count}, -1});
        pos += count;
      }
  }

  const BuilderSpec& spec_;
  Aliasing aliasing_;
  int scratch_base_;
  int p_chunks_ = 0;
  std::vector<std::vector<char>> written_;  // [rank][position in P]
  std::vector<PlannedOp> out_;
};

}  // namespace

std::vector<PlannedOp> outofplace_ops(const BuilderSpec& spec, const std::vector<PlannedOp>& recorded) {
  int scratch = 0;
  for (const PlannedOp& op : recorded)
    for (const ChunkRef& c : {op.src, op.dst})
      if (c.buf == BufferKind::Scratch) scratch = std::max(scratch, c.index + c.count);
  return Relocation(spec, scratch).run(recorded);
}

}  // namespace ccforge::ir
