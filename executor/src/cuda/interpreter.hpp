// Launching the interpreter kernel, one instantiation per element type. Kept free of the project's
// C++20 headers: nvcc compiles this part as C++17.
#pragma once

#include <cuda_runtime.h>

#include "device_program.hpp"

namespace ccforge::executor::cuda {

// Threads per block: NCCL uses 544 (Simple) and 640 (LL) (formats.md §1.7); 512 keeps one size for both.
// Several ranks sharing one GPU can need more blocks than fit at 512 (the kernel's 64 registers per
// thread allow 2 such blocks per H200 SM), so the launch halves the block down to one warp until all fit.
inline constexpr int kMaxThreadsPerBlock = 512;
inline constexpr int kMinThreadsPerBlock = 32;

// Blocks of the interpreter with `threads` threads each that can be resident on `device` at once
// (occupancy x SMs).
cudaError_t max_coresident_blocks(DeviceType type, int device, int threads, int* blocks);

// Cooperative launch: fails instead of starting when not all `blocks` can be co-resident, since the
// blocks spin-wait on each other.
cudaError_t launch_interpreter(DeviceType type, const KernelArgs& args, int blocks, int threads, cudaStream_t stream);

// elements[i] /= divisor for the n elements of `type` at `elements` (ncclAvg's division, executor.hpp).
cudaError_t launch_divide(DeviceType type, void* elements, std::int64_t n, int divisor, cudaStream_t stream);

}  // namespace ccforge::executor::cuda
