// Launching the interpreter kernel, one instantiation per element type. Kept free of the project's
// C++20 headers: nvcc compiles this part as C++17.
#pragma once

#include <cuda_runtime.h>

#include "device_program.hpp"

namespace ccforge::executor::cuda {

// Threads per block: NCCL's most (640 for LL and LL128, formats.md §1.7) when the blocks fit. Several
// ranks sharing one GPU can need more blocks than fit at 640 (one such block per H200 SM), so the launch
// halves the block, in whole warps, down to one warp until all fit.
inline constexpr int kMaxThreadsPerBlock = 640;
inline constexpr int kMinThreadsPerBlock = 32;

// How blocks move data: Wide (16-byte packs, several loads in flight per thread: the fast path) or
// Narrow (8-byte words, one in flight), kept so that a GPU run can measure what the wide path buys.
enum class DataPath { Wide, Narrow };

// Blocks of the interpreter with `threads` threads each that can be resident on `device` at once
// (occupancy x SMs).
cudaError_t max_coresident_blocks(DeviceType type, DataPath path, int device, int threads, int* blocks);

// Cooperative launch: fails instead of starting when not all `blocks` can be co-resident, since the
// blocks spin-wait on each other.
cudaError_t launch_interpreter(DeviceType type, DataPath path, const KernelArgs& args, int blocks, int threads, cudaStream_t stream);

// elements[i] /= divisor for the n elements of `type` at `elements` (ncclAvg's division, executor.hpp).
cudaError_t launch_divide(DeviceType type, void* elements, std::int64_t n, int divisor, cudaStream_t stream);

}  // namespace ccforge::executor::cuda
