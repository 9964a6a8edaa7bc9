// Whether an algorithm file's [minBytes, maxBytes] band covers a call, as the executor decides it.
#pragma once

#include "ccforge/executor/executor.hpp"
#include "ccforge/ir/ir.hpp"

namespace ccforge::validate {

// The executor's own test (formats.md §2.1): nBytes = count x sizeof(T) x sizeMultiplier against the
// file's band, which for gather and scatter is the nccl-tests size divided by the rank count.
inline bool in_band(const ir::Algorithm& a, const executor::CallSpec& call) {
  const ByteCount nbytes = static_cast<ByteCount>(call.count * size_of(call.dtype)) *
                           static_cast<ByteCount>(ir::size_multiplier(a.collective, a.ngpus));
  return nbytes >= a.min_bytes && (a.max_bytes == 0 || nbytes <= a.max_bytes);
}

}  // namespace ccforge::validate
