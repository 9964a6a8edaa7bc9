// Launching the interpreter kernel, one instantiation per element type.
#pragma once

#include <cuda_runtime.h>

#include "ccforge/executor/executor.hpp"
#include "device_program.hpp"

namespace ccforge::executor::cuda {

// Threads per block: NCCL uses 544 (Simple) and 640 (LL) (formats.md §1.7); 512 keeps one size for both
// and lets more blocks be co-resident.
inline constexpr int kThreadsPerBlock = 512;

// Blocks of the interpreter that can be resident on `device` at once (occupancy x SMs).
cudaError_t max_coresident_blocks(DataType type, int device, int* blocks);

// Cooperative launch: fails instead of starting when not all `blocks` can be co-resident, since the
// blocks spin-wait on each other.
cudaError_t launch_interpreter(DataType type, const KernelArgs& args, int blocks, cudaStream_t stream);

}  // namespace ccforge::executor::cuda
