// The nccl-tests size flags -b MIN -e MAX -f FACTOR, shared by the verbs that sweep sizes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::cli {

// The largest size ccforge sweeps: 1 TiB, five times the memory of the largest GPU it models (MI300X,
// 192 GB), so every size a GPU can hold fits, and times at the slowest modelled link stay far inside
// SimTime's picosecond range.
inline constexpr ByteCount kMaxSweepBytes = ByteCount{1} << 40;

inline ByteCount size_flag(const char* flag, const std::string& text) {
  const auto bytes = parse_size(text);
  if (!bytes) fail_at(flag, 0, fmt::format("'{}' is not a size", text), "write sizes like 1K, 64M, 1G");
  if (*bytes == 0 || *bytes > kMaxSweepBytes) {
    fail_at(flag, 0, fmt::format("size {} is out of range", text), "allowed: 1 byte to 1T");
  }
  return *bytes;
}

inline std::vector<ByteCount> sizes_from_flags(const std::string& begin, const std::string& end, int factor) {
  const ByteCount b = size_flag("-b", begin), e = size_flag("-e", end);
  if (b > e) fail_at("-b/-e", 0, fmt::format("-b {} exceeds -e {}", begin, end), "give -b <= -e");
  if (factor < 2) fail_at("-f", 0, fmt::format("size factor {} is out of range", factor), "allowed: >= 2");
  return size_sweep(b, e, static_cast<std::uint64_t>(factor));
}

// One line on stderr when the largest size exceeds the memory of the topology's smallest GPU: nccl-tests'
// size is the largest buffer a rank holds, so such a call cannot run; it is simulated anyway.
inline void warn_sizes_beyond_gpu_memory(const topo::Topology& topology, const std::vector<ByteCount>& sizes) {
  if (sizes.empty() || topology.num_gpus() == 0) return;
  std::uint64_t memory = 0;
  std::string model;
  for (int rank = 0; rank < topology.num_gpus(); ++rank) {
    const std::uint64_t m = topo::gpu_memory_bytes(topology.gpu(rank).model);
    if (m != 0 && (memory == 0 || m < memory)) memory = m, model = topology.gpu(rank).model;
  }
  const ByteCount largest = *std::max_element(sizes.begin(), sizes.end());
  if (memory == 0 || largest <= memory) return;
  fmt::print(stderr, "ccforge: warning: sizes up to {} exceed the {} memory of one {}; those above it cannot run and are simulated anyway (lower -e)\n",
             format_size(largest), format_size(memory), model);
}

}  // namespace ccforge::cli
