// The nccl-tests size flags -b MIN -e MAX -f FACTOR, shared by the verbs that sweep sizes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <optional>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::cli {

// The largest size ccforge sweeps: 1 TiB, five times the memory of the largest GPU it models (MI300X,
// 192 GB), so every size a GPU can hold fits, and times at the slowest modelled link stay far inside
// SimTime's picosecond range.
inline constexpr ByteCount kMaxSweepBytes = ByteCount{1} << 40;

// The most sizes one -i sweep may hold: more than nccl-tests' default -f 2 sweep of 1 B to 1 TiB has
// (41) by two orders of magnitude, yet small enough that a mistyped -i cannot start an endless run.
inline constexpr ByteCount kMaxSweepSizes = 4096;

inline ByteCount size_flag(const char* flag, const std::string& text) {
  const auto bytes = parse_size(text);
  if (!bytes) fail_at(flag, 0, fmt::format("'{}' is not a size", text), "write sizes like 1K, 64M, 1G");
  if (*bytes == 0 || *bytes > kMaxSweepBytes) {
    fail_at(flag, 0, fmt::format("size {} is out of range", text), "allowed: 1 byte to 1T");
  }
  return *bytes;
}

// The sweep flags every sweeping verb takes, with nccl-tests' names: -b, -e, and -f FACTOR or -i STEP.
struct SizeSweepFlags {
  std::string begin = "1K";
  std::optional<std::string> end;  // the verb's default when not given
  int factor = 2;
  std::string step_bytes;  // -i: linear steps instead of -f
  bool factor_given = false;
};

inline void add_size_sweep_flags(CLI::App& cmd, SizeSweepFlags& f, const std::string& default_end) {
  cmd.add_option("-b,--minbytes", f.begin,
                 "smallest size as nccl-tests counts it (the total over ranks for allgather, reducescatter, alltoall, gather, "
                 "scatter); K/M/G are powers of 2")
      ->capture_default_str();
  // Defaults in the default column, so that the descriptions read the same on every verb.
  cmd.add_option("-e,--maxbytes", f.end, "largest size")->default_str(default_end);
  cmd.add_option_function<int>(
         "-f,--stepfactor", [&f](int factor) { f.factor = factor, f.factor_given = true; },
         "multiply the size by this factor each step")
      ->default_str(std::to_string(f.factor));
  cmd.add_option("-i,--stepbytes", f.step_bytes, "add this many bytes each step instead (nccl-tests' -i; excludes -f)");
}

// The sizes of the sweep (`default_end` where -e is not given); a DiagError naming the flag when it is
// ill-formed.
inline std::vector<ByteCount> sweep_sizes(const SizeSweepFlags& f, const std::string& default_end) {
  const std::string end = f.end.value_or(default_end);
  const ByteCount b = size_flag("-b", f.begin), e = size_flag("-e", end);
  if (b > e) fail_at("-b/-e", 0, fmt::format("-b {} exceeds -e {}", f.begin, end), "give -b <= -e");
  if (f.factor < 2) fail_at("-f", 0, fmt::format("size factor {} is out of range", f.factor), "allowed: >= 2");
  if (f.step_bytes.empty()) return size_sweep(b, e, static_cast<std::uint64_t>(f.factor));
  if (f.factor_given) fail_at("-f/-i", 0, "both a step factor and step bytes given", "give -f or -i, not both");
  const ByteCount step = size_flag("-i", f.step_bytes);
  if ((e - b) / step >= kMaxSweepSizes)
    fail_at("-i", 0, fmt::format("-b {} -e {} -i {} is more than {} sizes", f.begin, end, f.step_bytes, kMaxSweepSizes),
            "give a larger -i or a narrower -b/-e");
  return linear_size_sweep(b, e, step);
}


// The memory of the topology's smallest GPU and its model (every loaded GPU is a catalogue model).
inline std::pair<std::uint64_t, std::string> smallest_gpu_memory(const topo::Topology& topology) {
  std::uint64_t memory = 0;
  std::string model;
  for (int rank = 0; rank < topology.num_gpus(); ++rank) {
    const std::uint64_t m = topology.gpu(rank).model->memory_bytes();
    if (memory == 0 || m < memory) memory = m, model = topology.gpu(rank).model->name;
  }
  return {memory, model};
}

// One line on stderr when the largest size exceeds the memory of the topology's smallest GPU: nccl-tests'
// size is the largest buffer a rank holds, so such a call cannot run; sim models it anyway (a run of
// sim takes well under a second at 1T).
inline void warn_sizes_beyond_gpu_memory(const topo::Topology& topology, const std::vector<ByteCount>& sizes) {
  const auto [memory, model] = smallest_gpu_memory(topology);
  const ByteCount largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  if (memory == 0 || largest <= memory) return;
  fmt::print(stderr, "ccforge: warning: sizes up to {} exceed the {} memory of one {}; those above it cannot run and are simulated anyway (lower -e)\n",
             format_size(largest), format_size(memory), model);
}

// tune refuses such sizes before starting: no run can use a selection for them, and its candidates'
// simulations grow with the size (pcie-4gpu allreduce: 1 s at 1G, 5 s at 8G, so hours at 1T).
inline void refuse_sizes_beyond_gpu_memory(const topo::Topology& topology, const std::vector<ByteCount>& sizes) {
  const auto [memory, model] = smallest_gpu_memory(topology);
  const ByteCount largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  if (memory == 0 || largest <= memory) return;
  fail_at("-e", 0, fmt::format("size {} exceeds the {} memory of one {}: no run can hold its buffer", format_size(largest), format_size(memory), model),
          fmt::format("allowed: up to {} on this topology; lower -e", format_size(memory)));
}

}  // namespace ccforge::cli
