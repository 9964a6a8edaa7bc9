// The interpreter kernel: block b runs threadblock tbs[b] of its rank, step by step, as
// msccl-executor-nccl's mscclRunInterpreter does. Simple (and LL128, run with Simple's ring) writes a slot
// in 16-byte packs and then publishes `tail`; LL writes 16-byte lines of (4 B data, 4 B flag) x 2 that the
// receiver polls. One thread waits for credits and flags while the others wait at a barrier.
#include "interpreter.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace ccforge::executor::cuda {
namespace {

// How many spins between checks of the clock and the abort flag (the abort flag lives in host memory).
constexpr unsigned kSpinsPerCheck = 1024;

__device__ std::uint64_t global_time_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins until ready() holds; false when the kernel is aborted or this wait exceeds the watchdog.
template <typename Ready>
__device__ bool spin_until(const KernelArgs& args, const DeviceTb& tb, int step, int waiting, Ready ready) {
  const std::uint64_t start = global_time_ns();
  for (unsigned n = 1; !ready(); ++n) {
    if (n % kSpinsPerCheck != 0) continue;
    if (*args.abort) return false;
    if (global_time_ns() - start > args.timeout_ns) {
      if (atomicCAS(const_cast<int*>(&args.status->code), 0, 1) == 0) {
        args.status->rank = tb.rank;
        args.status->tb = tb.tb;
        args.status->step = step;
        args.status->waiting = waiting;
        __threadfence_system();
      }
      *args.abort = 1;
      return false;
    }
  }
  return true;
}

// The first test reads no clock: most LL lines and credits are ready when first looked at.
template <typename Ready>
__device__ bool spin(const KernelArgs& args, const DeviceTb& tb, int step, int waiting, Ready ready) {
  return ready() || spin_until(args, tb, step, waiting, ready);
}

template <typename T>
__device__ T combine(int op, T a, T b) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    const float r = combine<float>(op, static_cast<float>(a), static_cast<float>(b));
    return T(r);  // round to nearest even
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case 0: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case 1: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case 2: return b < a ? b : a;
      default: return a < b ? b : a;
    }
  } else {
    switch (op) {
      case 0: return a + b;
      case 1: return a * b;
      case 2: return b < a ? b : a;
      default: return a < b ? b : a;
    }
  }
}

template <typename T>
__device__ std::uint64_t reduce_word(int op, std::uint64_t a, std::uint64_t b) {
  constexpr int kLanes = 8 / sizeof(T);
  T x[kLanes], y[kLanes];
  memcpy(x, &a, 8);
  memcpy(y, &b, 8);
  for (int i = 0; i < kLanes; ++i) x[i] = combine<T>(op, x[i], y[i]);
  memcpy(&a, x, 8);
  return a;
}

// Loads bypass L1 (volatile): buffers and rings are written by other blocks, which L1 does not see.
__device__ std::uint64_t load_word(const char* p, int nbytes) {
  if (nbytes == 8 && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) return *reinterpret_cast<const volatile std::uint64_t*>(p);
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) reinterpret_cast<char*>(&v)[i] = reinterpret_cast<const volatile char*>(p)[i];
  return v;
}

__device__ void store_word(char* p, std::uint64_t v, int nbytes) {
  if (nbytes == 8 && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<std::uint64_t*>(p) = v;
    return;
  }
  for (int i = 0; i < nbytes; ++i) p[i] = reinterpret_cast<const char*>(&v)[i];
}

struct Pack16 {
  std::uint64_t lo, hi;
};

__device__ Pack16 load_pack(const char* p) {
  Pack16 v;
  asm volatile("ld.volatile.global.v2.u64 {%0,%1}, [%2];" : "=l"(v.lo), "=l"(v.hi) : "l"(p));
  return v;
}

__device__ void store_pack(char* p, Pack16 v) { asm volatile("st.global.v2.u64 [%0], {%1,%2};" ::"l"(p), "l"(v.lo), "l"(v.hi) : "memory"); }

// An LL line: two {4 B data, 4 B flag} halves, written with one 16-byte store so that a reader that sees
// both flags sees both data halves.
__device__ void ll_store(std::uint64_t* line, std::uint64_t v, std::uint32_t flag) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(line), "r"(static_cast<std::uint32_t>(v)), "r"(flag),
               "r"(static_cast<std::uint32_t>(v >> 32)), "r"(flag));
}

__device__ bool ll_load(const std::uint64_t* line, std::uint32_t flag, std::uint64_t* v) {
  std::uint32_t d0, f0, d1, f1;
  asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1) : "l"(line));
  *v = (static_cast<std::uint64_t>(d1) << 32) | d0;
  return f0 == flag && f1 == flag;
}

// What one primitive call moves, decoded once per call. Every op is out = x, or out = reduce(x, y), with
// x the received data (ring), else dst (reduce) or src, and y src; out goes to dst and/or the send ring.
struct Transfer {
  const char* x;          // nullptr when x comes from an LL ring (polled per line)
  const char* y;          // nullptr unless the op reduces
  char* dst;
  char* out;              // Simple send ring, nullptr when not sending (or LL)
  std::int64_t bytes;
};

template <typename T>
__device__ std::uint64_t combine_word(int red_op, const Transfer& t, std::uint64_t x, std::uint64_t y) {
  return t.y != nullptr ? reduce_word<T>(red_op, x, y) : x;
}

// Simple (and LL128, which the device runs with Simple's ring): the transfer's words from `from` on,
// 8 bytes at a time, one in flight per thread: the narrow path, the tail of a wide move and any
// misaligned transfer.
template <typename T>
__device__ void move_words(int red_op, const Transfer& t, std::int64_t from) {
  const std::int64_t words = (t.bytes + 7) / 8;
  for (std::int64_t w = from + threadIdx.x; w < words; w += blockDim.x) {
    const int nb = static_cast<int>(t.bytes - w * 8 < 8 ? t.bytes - w * 8 : 8);
    const std::uint64_t x = load_word(t.x + w * 8, nb);
    const std::uint64_t y = t.y != nullptr ? load_word(t.y + w * 8, nb) : 0;
    const std::uint64_t v = combine_word<T>(red_op, t, x, y);
    if (t.dst != nullptr) store_word(t.dst + w * 8, v, nb);
    if (t.out != nullptr) reinterpret_cast<std::uint64_t*>(t.out)[w] = v;
  }
}

__device__ bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

// The 16-byte path: each thread has kUnroll packs of x (and y) in flight before it combines and stores,
// as a copy kernel needs to approach one SM's bandwidth. Copies and reductions are separate loops so that
// the copy loop's registers do not pay for the reduction's.
template <typename T, int kUnroll, bool kReduces>
__device__ void move_packs_unrolled(int red_op, const Transfer& t, std::int64_t packs) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * kUnroll;
  for (std::int64_t base = threadIdx.x; base < packs; base += stride) {
    Pack16 x[kUnroll], y[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t i = base + static_cast<std::int64_t>(u) * blockDim.x;
      if (i >= packs) break;
      x[u] = load_pack(t.x + i * 16);
      if (kReduces) y[u] = load_pack(t.y + i * 16);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t i = base + static_cast<std::int64_t>(u) * blockDim.x;
      if (i >= packs) break;
      Pack16 v = x[u];
      if (kReduces) v = {reduce_word<T>(red_op, x[u].lo, y[u].lo), reduce_word<T>(red_op, x[u].hi, y[u].hi)};
      if (t.dst != nullptr) store_pack(t.dst + i * 16, v);
      if (t.out != nullptr) store_pack(t.out + i * 16, v);
    }
  }
}

// Falls back to words when a pointer is not 16-byte aligned (odd chunk offsets of small element types).
template <typename T, int kUnroll>
__device__ void move_packs(int red_op, const Transfer& t) {
  if (!aligned16(t.x) || !aligned16(t.y) || !aligned16(t.dst) || !aligned16(t.out)) return move_words<T>(red_op, t, 0);
  const std::int64_t packs = t.bytes / 16;
  if (t.y != nullptr) move_packs_unrolled<T, kUnroll, true>(red_op, t, packs);
  else move_packs_unrolled<T, kUnroll, false>(red_op, t, packs);
  move_words<T>(red_op, t, packs * 2);
}

// LL: word w travels in line w of the ring. A receiving thread issues the loads of kUnroll lines before
// it polls any of them again; a sending thread stores each line with one 16-byte store. Copies and
// reductions are separate loops, as for Simple.
template <typename T, int kUnroll, bool kReduces>
__device__ bool move_ll_unrolled(const KernelArgs& args, const DeviceTb& tb, int step, const Transfer& t, const std::uint64_t* in_ring,
                                 std::uint32_t in_flag, std::uint64_t* out_ring, std::uint32_t out_flag) {
  const std::int64_t words = (t.bytes + 7) / 8;
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * kUnroll;
  for (std::int64_t base = threadIdx.x; base < words; base += stride) {
    std::uint64_t x[kUnroll], y[kUnroll];
    bool ready[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t w = base + static_cast<std::int64_t>(u) * blockDim.x;
      if (w >= words) break;
      const int nb = static_cast<int>(t.bytes - w * 8 < 8 ? t.bytes - w * 8 : 8);
      ready[u] = in_ring == nullptr || ll_load(in_ring + 2 * w, in_flag, &x[u]);
      if (in_ring == nullptr) x[u] = load_word(t.x + w * 8, nb);
      y[u] = kReduces ? load_word(t.y + w * 8, nb) : 0;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t w = base + static_cast<std::int64_t>(u) * blockDim.x;
      if (w >= words) break;
      if (!ready[u]) {
        std::uint64_t polled = 0;  // not x[u]: a reference into x would move the array to local memory
        if (!spin(args, tb, step, 3, [&] { return ll_load(in_ring + 2 * w, in_flag, &polled); })) return false;
        x[u] = polled;
      }
      const int nb = static_cast<int>(t.bytes - w * 8 < 8 ? t.bytes - w * 8 : 8);
      const std::uint64_t v = kReduces ? reduce_word<T>(args.red_op, x[u], y[u]) : x[u];
      if (t.dst != nullptr) store_word(t.dst + w * 8, v, nb);
      if (out_ring != nullptr) ll_store(out_ring + 2 * w, v, out_flag);
    }
  }
  return true;
}

template <typename T, int kUnroll>
__device__ bool move_ll(const KernelArgs& args, const DeviceTb& tb, int step, const Transfer& t, const std::uint64_t* in_ring,
                        std::uint32_t in_flag, std::uint64_t* out_ring, std::uint32_t out_flag) {
  if (t.y != nullptr) return move_ll_unrolled<T, kUnroll, true>(args, tb, step, t, in_ring, in_flag, out_ring, out_flag);
  return move_ll_unrolled<T, kUnroll, false>(args, tb, step, t, in_ring, in_flag, out_ring, out_flag);
}

// Running transfer counts of the block's connections; every thread keeps the same copy. Thread 0 also
// keeps the last `head` and `tail` it read (as NCCL's connHeadCache): with 8 slots a credit read once
// covers several transfers, so most calls read no remote counter and need no fence.
struct Counters {
  std::uint64_t sent, received;
  std::uint64_t head_seen = 0, tail_seen = 0;
};

// The block-wide moves: wide (16-byte packs, several in flight) or narrow (8-byte words, one in flight;
// kept selectable so that a GPU run measures what the wide path buys).
template <bool kWide>
struct Mover {
  static constexpr int kSimpleUnroll = kWide ? 4 : 1;
  static constexpr int kLLUnroll = kWide ? 2 : 1;
};

// One primitive call: thread 0 waits for the slots it needs while the others wait at a barrier, all
// threads move the data, thread 0 publishes after a barrier (its fence orders the block's stores, as the
// barrier made them its own). An LL call that only sends publishes nothing (its flags travel in the
// lines), so it skips the second barrier: the next call's first one orders the slots.
template <typename T, bool kWide>
__device__ bool run_primitive(const KernelArgs& args, const DeviceTb& tb, int step, int op, Transfer t, Counters& c) {
  const bool sends = op == kSend || op == kRecvCopySend || op == kRecvReduceSend || op == kRecvReduceCopySend;
  const bool receives = op != kSend && op != kCopy && op != kReduce;
  const DeviceConnection* out = sends ? &args.connections[tb.send] : nullptr;
  const DeviceConnection* in = receives ? &args.connections[tb.recv] : nullptr;
  const bool ll = args.protocol == kProtoLL;
  bool failed = false;
  if (threadIdx.x == 0) {
    bool waited = false;
    if (sends && c.head_seen + out->capacity <= c.sent) {
      waited = true;
      failed = !spin(args, tb, step, 2, [&] { return (c.head_seen = *out->head) + out->capacity > c.sent; });
    }
    if (receives && !ll && !failed && c.tail_seen <= c.received) {
      waited = true;
      failed = !spin(args, tb, step, 3, [&] { return (c.tail_seen = *in->tail) > c.received; });
    }
    if (waited) __threadfence();
  }
  if (__syncthreads_or(failed)) return false;
  std::uint64_t* out_ring = sends ? out->ring + (c.sent % out->capacity) * out->transfer_words : nullptr;
  const std::uint64_t* in_ring = receives ? in->ring + (c.received % in->capacity) * in->transfer_words : nullptr;
  if (ll) {
    failed = !move_ll<T, Mover<kWide>::kLLUnroll>(args, tb, step, t, in_ring, static_cast<std::uint32_t>(c.received + 1), out_ring,
                                                   static_cast<std::uint32_t>(c.sent + 1));
  } else {
    if (receives) t.x = reinterpret_cast<const char*>(in_ring);
    t.out = reinterpret_cast<char*>(out_ring);
    if (kWide) move_packs<T, Mover<kWide>::kSimpleUnroll>(args.red_op, t);
    else move_words<T>(args.red_op, t, 0);
  }
  if (sends) ++c.sent;
  if (ll && !receives) return true;
  if (__syncthreads_or(failed)) return false;
  if (threadIdx.x == 0) {
    if (sends && !ll) {
      __threadfence_system();
      *out->tail = c.sent;
    }
    if (receives) *in->head = c.received + 1;
  }
  if (receives) ++c.received;
  return true;
}

__device__ char* chunk_address(const KernelArgs& args, const DeviceRank& rank, int buf, int chunk, std::int64_t tile_offset) {
  return rank.buffers[buf] + (chunk * args.chunk_elems + tile_offset) * args.elem_bytes;
}

// Runs one step on one tile of each of its chunks, in groups of max_allowed_count chunks per primitive.
template <typename T, bool kWide>
__device__ bool run_step(const KernelArgs& args, const DeviceTb& tb, int s, const DeviceStep& step, std::int64_t tile_offset,
                         std::int64_t tile_len, Counters& c) {
  const DeviceRank& rank = args.ranks[tb.rank];
  const int op = step.op;
  const bool receives = op != kSend && op != kCopy && op != kReduce;
  const bool reduces = op == kReduce || op == kRecvReduceSend || op == kRecvReduceCopy || op == kRecvReduceCopySend;
  const bool reads_src = op != kRecv && op != kRecvCopySend;
  const bool writes_dst = op != kSend && op != kRecvReduceSend;
  for (int done = 0; done < step.count; done += args.max_allowed_count) {
    const int group = step.count - done < args.max_allowed_count ? step.count - done : args.max_allowed_count;
    const char* src = reads_src ? chunk_address(args, rank, step.src_buf, step.src_off + done, tile_offset) : nullptr;
    char* dst = writes_dst ? chunk_address(args, rank, step.dst_buf, step.dst_off + done, tile_offset) : nullptr;
    Transfer t{receives ? nullptr : op == kReduce ? dst : src, reduces ? src : nullptr, dst, nullptr,
               ((group - 1) * args.chunk_elems + tile_len) * args.elem_bytes};
    if (!run_primitive<T, kWide>(args, tb, s, op, t, c)) return false;
  }
  return true;
}

// Steps a block keeps in shared memory (msccl_struct.h MSCCL_MAX_NUM_STEPS is 64; longer programs, which
// check_runnable rejects anyway, would be read from global memory).
constexpr int kCachedSteps = 64;

// At most NCCL's 640 threads (formats.md §1.7), one block per SM: the registers that leaves (up to 96)
// keep the unrolled loads in flight without spilling.
template <typename T, bool kWide>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) interpreter_kernel(KernelArgs args) {
  const DeviceTb tb = args.tbs[blockIdx.x];
  const DeviceRank& rank = args.ranks[tb.rank];
  __shared__ DeviceStep cached[kCachedSteps];
  const DeviceStep* steps = args.steps + tb.first_step;
  if (tb.nsteps <= kCachedSteps) {
    for (int s = threadIdx.x; s < tb.nsteps; s += blockDim.x) cached[s] = steps[s];
    steps = cached;
  }
  Counters c{tb.send >= 0 ? *args.connections[tb.send].sent : 0, tb.recv >= 0 ? *args.connections[tb.recv].received : 0};
  __syncthreads();
  for (std::int64_t tile = 0; tile < args.iterations; ++tile) {
    const std::uint64_t iteration = args.call_index * args.iterations + tile;
    const std::int64_t tile_offset = tile * args.tile_elems;
    const std::int64_t tile_len = args.chunk_elems - tile_offset < args.tile_elems ? args.chunk_elems - tile_offset : args.tile_elems;
    for (int s = 0; s < tb.nsteps; ++s) {
      const DeviceStep& step = steps[s];
      if (step.dep_tb >= 0) {
        bool failed = false;
        if (threadIdx.x == 0) {
          const std::uint64_t target = iteration * kFlagStride + step.dep_step + 1;
          failed = !spin(args, tb, s, 1, [&] { return rank.tb_flags[step.dep_tb] >= target; });
          __threadfence();
        }
        if (__syncthreads_or(failed)) return;
      }
      if (step.op != kNop && !run_step<T, kWide>(args, tb, s, step, tile_offset, tile_len, c)) return;
      if (step.has_dep) {
        __syncthreads();
        if (threadIdx.x == 0) {
          __threadfence();
          rank.tb_flags[tb.tb] = iteration * kFlagStride + s + 1;
        }
      }
    }
  }
  if (threadIdx.x == 0) {
    if (tb.send >= 0) *args.connections[tb.send].sent = c.sent;
    if (tb.recv >= 0) *args.connections[tb.recv].received = c.received;
  }
}

// ncclAvg's division of one rank's result (executor.hpp), launched after the call's interpreter kernel.
template <typename T>
__global__ void divide_kernel(T* p, std::int64_t n, int divisor) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      p[i] = T(static_cast<float>(p[i]) / static_cast<float>(divisor));  // round to nearest even
    } else {
      p[i] = static_cast<T>(p[i] / static_cast<T>(divisor));
    }
  }
}

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the element type T of `type`.
template <typename F>
cudaError_t dispatch(DeviceType type, F f) {
  switch (type) {
    case kHalf: return f(TypeTag<__half>{});
    case kBFloat16: return f(TypeTag<__nv_bfloat16>{});
    case kFloat: return f(TypeTag<float>{});
    case kDouble: return f(TypeTag<double>{});
    case kInt8: return f(TypeTag<std::int8_t>{});
    case kUint8: return f(TypeTag<std::uint8_t>{});
    case kInt32: return f(TypeTag<std::int32_t>{});
    case kUint32: return f(TypeTag<std::uint32_t>{});
    case kInt64: return f(TypeTag<std::int64_t>{});
    case kUint64: return f(TypeTag<std::uint64_t>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

// The kernel instantiation for element type T and `path`.
template <typename T>
const void* kernel_for(DataPath path) {
  return path == DataPath::Wide ? reinterpret_cast<const void*>(interpreter_kernel<T, true>) : reinterpret_cast<const void*>(interpreter_kernel<T, false>);
}

cudaError_t max_coresident_blocks(DeviceType type, DataPath path, int device, int threads, int* blocks) {
  int sms = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess) return e;
  return dispatch(type, [&](auto tag) {
    int per_sm = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for<typename decltype(tag)::type>(path), threads, 0);
    *blocks = per_sm * sms;
    return e;
  });
}

cudaError_t launch_interpreter(DeviceType type, DataPath path, const KernelArgs& args, int blocks, int threads, cudaStream_t stream) {
  return dispatch(type, [&](auto tag) {
    KernelArgs copy = args;
    void* params[] = {&copy};
    return cudaLaunchCooperativeKernel(kernel_for<typename decltype(tag)::type>(path), dim3(blocks), dim3(threads), params, 0, stream);
  });
}

cudaError_t launch_divide(DeviceType type, void* elements, std::int64_t n, int divisor, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  constexpr int kThreads = 256, kMaxBlocks = 1024;
  const int blocks = static_cast<int>(n / kThreads + 1 < kMaxBlocks ? n / kThreads + 1 : kMaxBlocks);
  return dispatch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    divide_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(elements), n, divisor);
    return cudaGetLastError();
  });
}

}  // namespace ccforge::executor::cuda
