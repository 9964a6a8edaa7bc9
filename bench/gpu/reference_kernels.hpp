// Reference kernels the executor's GPU bench times next to the interpreter: what one block, one
// producer/consumer pair and one flag handoff cost on this GPU without the interpreter. Kept free of the
// project's C++20 headers: nvcc compiles this part as C++17.
#pragma once

#include <cstdint>

namespace ccforge::bench::gpu {

// Every function runs its kernel `reps` times after one warm-up and returns the mean microseconds of one
// run (CUDA events), or a negative value when CUDA failed (the error is printed to stderr).

// `blocks` blocks of `threads` each copy their own slice of `bytes`, 16-byte loads, 4 in flight per thread.
double time_copy(int blocks, int threads, std::int64_t bytes, int reps);
// cudaMemcpyAsync device to device of `bytes`.
double time_memcpy(std::int64_t bytes, int reps);
// One producer block -> `slots` slots of `slot_bytes` in global memory (tail/head counters, one thread
// waits and publishes after a barrier) -> one consumer block -> output; `bytes` in all.
double time_pair_fifo(int threads, std::int64_t slot_bytes, int slots, std::int64_t bytes, int reps);
// The same with LL lines (16 bytes: 2 x {4 B data, 4 B flag}, one 16-byte store); slot_bytes is payload.
double time_pair_ll(int threads, std::int64_t slot_bytes, int slots, std::int64_t bytes, int reps);
// Two single-thread blocks bounce a counter `hops` times; returns ns per one-way hop. fence: 0 none,
// 1 __threadfence before each store, 2 __threadfence_system.
double time_pingpong_ns(int fence, int hops);
// One block of `threads` runs `rounds` __syncthreads; returns ns per barrier.
double time_barrier_ns(int threads, int rounds);

}  // namespace ccforge::bench::gpu
