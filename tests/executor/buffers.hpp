// Rank buffers filled with values whose sums are exact in float and half, and the expected results.
#pragma once

#include <cstring>
#include <vector>

#include "ccforge/executor/executor.hpp"

namespace ccforge::executor::testing {

// Rank r's input element i is r * 1000 + i % 97: distinct per rank, exact in float (and in half for
// the small counts used with half), so the order of a sum does not matter.
inline std::vector<RankBuffers> make_buffers(const CallSpec& call, int n) {
  std::vector<RankBuffers> buffers(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    const BufferLayout layout = buffer_layout(call, n, r);
    std::vector<float> input(layout.send_elems);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(r * 1000 + static_cast<int>(i % 97));
    auto& b = buffers[static_cast<std::size_t>(r)];
    b.send.resize(input.size() * sizeof(float));
    std::memcpy(b.send.data(), input.data(), b.send.size());
    if (call.inplace) {
      b.recv.assign(layout.inplace_elems * sizeof(float), std::byte{0});
      std::memcpy(b.recv.data() + layout.inplace_send_offset * sizeof(float), input.data(), b.send.size());
    } else {
      b.recv.assign(layout.recv_elems * sizeof(float), std::byte{0});
    }
  }
  return buffers;
}

inline std::vector<float> output_of(const CallSpec& call, const RankBuffers& b, int n, int r) {
  const BufferLayout layout = buffer_layout(call, n, r);
  std::vector<float> out(layout.recv_elems);
  const std::size_t offset = call.inplace ? layout.inplace_recv_offset : 0;
  std::memcpy(out.data(), b.recv.data() + offset * sizeof(float), out.size() * sizeof(float));
  return out;
}

inline float allreduce_sum_expected(int n, std::size_t i) {
  float sum = 0;
  for (int r = 0; r < n; ++r) sum += static_cast<float>(r * 1000 + static_cast<int>(i % 97));
  return sum;
}

}  // namespace ccforge::executor::testing
