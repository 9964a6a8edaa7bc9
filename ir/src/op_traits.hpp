// Parsing of op and buffer spellings, and a GPU's chunk count per buffer, for the reader, checker and
// builder. What each op does (traits) is an executor fact: ccforge/ir/executor_facts.hpp.
#pragma once

#include <optional>
#include <string_view>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

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
