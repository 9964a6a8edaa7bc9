// Reference kernels for the executor's GPU bench (reference_kernels.hpp).
#include "reference_kernels.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

namespace ccforge::bench::gpu {
namespace {

constexpr int kUnroll = 4;

__device__ uint4 load16(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// Block-wide copy of n 16-byte packs, kUnroll loads in flight per thread.
__device__ void block_copy(uint4* dst, const uint4* src, std::int64_t n) {
  for (std::int64_t base = threadIdx.x; base < n; base += static_cast<std::int64_t>(blockDim.x) * kUnroll) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (base + u * blockDim.x < n) v[u] = load16(src + base + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (base + u * blockDim.x < n) dst[base + u * blockDim.x] = v[u];
  }
}

__global__ void copy_kernel(uint4* dst, const uint4* src, std::int64_t per_block) {
  block_copy(dst + blockIdx.x * per_block, src + blockIdx.x * per_block, per_block);
}

struct Fifo {
  uint4* ring;
  volatile unsigned long long* tail;
  volatile unsigned long long* head;
};

// Block 0 produces, block 1 consumes, `transfers` slots of slot_packs each.
__global__ void pair_fifo_kernel(Fifo f, const uint4* src, uint4* dst, std::int64_t slot_packs, int slots, std::int64_t transfers) {
  const bool producer = blockIdx.x == 0;
  for (std::int64_t n = 0; n < transfers; ++n) {
    uint4* slot = f.ring + (n % slots) * slot_packs;
    if (threadIdx.x == 0) {
      if (producer) while (*f.head + slots <= static_cast<unsigned long long>(n)) {}
      else while (*f.tail <= static_cast<unsigned long long>(n)) {}
      __threadfence();
    }
    __syncthreads();
    if (producer) block_copy(slot, src + n * slot_packs, slot_packs);
    else block_copy(dst + n * slot_packs, slot, slot_packs);
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      if (producer) *f.tail = n + 1;
      else *f.head = n + 1;
    }
  }
}

__global__ void pair_ll_kernel(Fifo f, const unsigned long long* src, unsigned long long* dst, std::int64_t slot_words, int slots,
                               std::int64_t transfers) {
  const bool producer = blockIdx.x == 0;
  for (std::int64_t n = 0; n < transfers; ++n) {
    uint4* slot = f.ring + (n % slots) * slot_words;
    const unsigned flag = static_cast<unsigned>(n + 1);
    if (producer) {
      if (threadIdx.x == 0) while (*f.head + slots <= static_cast<unsigned long long>(n)) {}
      __syncthreads();
      for (std::int64_t w = threadIdx.x; w < slot_words; w += blockDim.x) {
        const unsigned long long v = src[n * slot_words + w];
        asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(slot + w), "r"(static_cast<unsigned>(v)), "r"(flag),
                     "r"(static_cast<unsigned>(v >> 32)), "r"(flag));
      }
    } else {
      for (std::int64_t w = threadIdx.x; w < slot_words; w += blockDim.x) {
        uint4 line;
        do line = load16(slot + w);
        while (line.y != flag || line.w != flag);
        dst[n * slot_words + w] = (static_cast<unsigned long long>(line.z) << 32) | line.x;
      }
      __syncthreads();
      if (threadIdx.x == 0) *f.head = n + 1;
    }
  }
}

__global__ void pingpong_kernel(volatile unsigned long long* counter, int fence, int hops) {
  for (int n = blockIdx.x; n < hops; n += 2) {
    while (*counter != static_cast<unsigned long long>(n)) {}
    if (fence == 1) __threadfence();
    if (fence == 2) __threadfence_system();
    *counter = n + 1;
  }
}

__global__ void barrier_kernel(int rounds, int* sink) {
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    acc += threadIdx.x ^ r;
    __syncthreads();
  }
  if (acc == -1) *sink = acc;
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "executor_gpu_bench: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Mean microseconds of `reps` runs of launch() after one warm-up.
template <typename Launch>
double time_us(int reps, Launch launch) {
  cudaEvent_t a, b;
  if (!ok(cudaEventCreate(&a), "event") || !ok(cudaEventCreate(&b), "event")) return -1;
  launch(0);
  cudaEventRecord(a);
  for (int r = 1; r <= reps; ++r) launch(r);
  cudaEventRecord(b);
  float ms = 0;
  const bool good = ok(cudaEventSynchronize(b), "kernel") && ok(cudaGetLastError(), "launch") && ok(cudaEventElapsedTime(&ms, a, b), "elapsed");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return good ? 1000.0 * ms / reps : -1;
}

// Device buffers freed on scope exit.
struct Buffers {
  std::vector<void*> ptrs;
  ~Buffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  template <typename T>
  T* get(std::int64_t bytes) {
    void* p = nullptr;
    if (!ok(cudaMalloc(&p, bytes < 16 ? 16 : bytes), "cudaMalloc") || !ok(cudaMemset(p, 0, bytes < 16 ? 16 : bytes), "cudaMemset")) return nullptr;
    ptrs.push_back(p);
    return static_cast<T*>(p);
  }
};

}  // namespace

double time_copy(int blocks, int threads, std::int64_t bytes, int reps) {
  Buffers m;
  auto* src = m.get<uint4>(bytes);
  auto* dst = m.get<uint4>(bytes);
  if (!src || !dst) return -1;
  const std::int64_t per_block = bytes / 16 / blocks;
  return time_us(reps, [&](int) { copy_kernel<<<blocks, threads>>>(dst, src, per_block); });
}

double time_memcpy(std::int64_t bytes, int reps) {
  Buffers m;
  void* src = m.get<char>(bytes);
  void* dst = m.get<char>(bytes);
  if (!src || !dst) return -1;
  return time_us(reps, [&](int) { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); });
}

// The counters restart at 0 for each run: each run gets fresh ones.
double time_pair_fifo(int threads, std::int64_t slot_bytes, int slots, std::int64_t bytes, int reps) {
  Buffers m;
  const std::int64_t transfers = bytes / slot_bytes, slot_packs = slot_bytes / 16;
  auto* src = m.get<uint4>(bytes);
  auto* dst = m.get<uint4>(bytes);
  auto* ring = m.get<uint4>(slot_bytes * slots);
  auto* counters = m.get<unsigned long long>(16 * (reps + 1));
  if (!src || !dst || !ring || !counters) return -1;
  return time_us(reps, [&](int r) {
    pair_fifo_kernel<<<2, threads>>>(Fifo{ring, counters + 2 * r, counters + 2 * r + 1}, src, dst, slot_packs, slots, transfers);
  });
}

double time_pair_ll(int threads, std::int64_t slot_bytes, int slots, std::int64_t bytes, int reps) {
  Buffers m;
  const std::int64_t transfers = bytes / slot_bytes, slot_words = slot_bytes / 8;
  auto* src = m.get<unsigned long long>(bytes);
  auto* dst = m.get<unsigned long long>(bytes);
  auto* ring = m.get<uint4>(slot_words * 16 * slots);
  auto* counters = m.get<unsigned long long>(16 * (reps + 1));
  if (!src || !dst || !ring || !counters) return -1;
  // Flags restart at 1 each run, so each run clears the ring first (outside the timed kernel's work
  // only in that it is a memset on the same stream; it is small next to the transfers).
  return time_us(reps, [&](int r) {
    cudaMemsetAsync(ring, 0, slot_words * 16 * slots);
    pair_ll_kernel<<<2, threads>>>(Fifo{ring, counters + 2 * r, counters + 2 * r + 1}, src, dst, slot_words, slots, transfers);
  });
}

double time_pingpong_ns(int fence, int hops) {
  Buffers m;
  auto* counter = m.get<unsigned long long>(8);
  if (!counter) return -1;
  const double us = time_us(1, [&](int) {
    cudaMemsetAsync(counter, 0, 8);
    pingpong_kernel<<<2, 1>>>(counter, fence, hops);
  });
  return us < 0 ? us : 1000.0 * us / hops;
}

double time_barrier_ns(int threads, int rounds) {
  Buffers m;
  auto* sink = m.get<int>(4);
  if (!sink) return -1;
  const double us = time_us(1, [&](int) { barrier_kernel<<<1, threads>>>(rounds, sink); });
  return us < 0 ? us : 1000.0 * us / rounds;
}

}  // namespace ccforge::bench::gpu
