// What each step type does with connections and buffers (formats.md §1.3), in one place for the
// reader, checker and builder.
#pragma once

#include <optional>
#include <string_view>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

struct OpTraits {
  bool sends;         // pushes data to tb.send
  bool receives;      // pops data from tb.recv
  bool reads_src;     // reads src[srcoff..+cnt)
  bool writes_dst;    // writes dst[dstoff..+cnt)
  bool reads_dst;     // reads dst before writing it (local reduce)
  bool reduces;       // combines received/dst data with src
  bool parser_checks_src;  // executor bound-checks srcoff against the src buffer
  bool parser_checks_dst;  // executor bound-checks dstoff against the dst buffer
};

constexpr OpTraits traits(OpType t) {
  switch (t) {
    case OpType::Send: return {true, false, true, false, false, false, true, false};
    case OpType::Recv: return {false, true, false, true, false, false, false, true};
    case OpType::RecvCopySend: return {true, true, false, true, false, false, false, true};
    case OpType::RecvReduceSend: return {true, true, true, false, false, true, true, false};
    case OpType::RecvReduceCopy: return {false, true, true, true, false, true, false, false};
    case OpType::RecvReduceCopySend: return {true, true, true, true, false, true, true, true};
    case OpType::Copy: return {false, false, true, true, false, false, true, true};
    case OpType::Reduce: return {false, false, true, true, true, true, true, true};
    case OpType::Nop: return {false, false, false, false, false, false, false, false};
  }
  return {};
}

inline std::optional<OpType> op_from_string(std::string_view s) {
  constexpr OpType kAll[] = {OpType::Send, OpType::Recv, OpType::RecvCopySend, OpType::RecvReduceSend,
                             OpType::RecvReduceCopy, OpType::RecvReduceCopySend, OpType::Copy, OpType::Reduce,
                             OpType::Nop};
  for (OpType t : kAll)
    if (s == to_string(t)) return t;
  return std::nullopt;
}

inline std::optional<BufferKind> buffer_from_string(std::string_view s) {
  if (s == "i") return BufferKind::Input;
  if (s == "o") return BufferKind::Output;
  if (s == "s") return BufferKind::Scratch;
  return std::nullopt;
}

inline int chunks_of(const GpuProgram& gpu, BufferKind b) {
  switch (b) {
    case BufferKind::Input: return gpu.input_chunks;
    case BufferKind::Output: return gpu.output_chunks;
    case BufferKind::Scratch: return gpu.scratch_chunks;
  }
  return 0;
}

}  // namespace ccforge::ir
