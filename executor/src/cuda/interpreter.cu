// The interpreter kernel: block b runs threadblock tbs[b] of its rank, step by step, as
// msccl-executor-nccl's mscclRunInterpreter does. Transfers move 8-byte words; Simple writes a slot and
// then publishes `tail`, LL writes 16-byte lines of (4 B data, 4 B flag) x 2 that the receiver polls.
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
__device__ bool spin(const KernelArgs& args, const DeviceTb& tb, int step, int waiting, Ready ready) {
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

__device__ std::uint64_t load_word(const char* p, int nbytes) {
  if (nbytes == 8 && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) return *reinterpret_cast<const volatile std::uint64_t*>(p);
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) reinterpret_cast<char*>(&v)[i] = p[i];
  return v;
}

__device__ void store_word(char* p, std::uint64_t v, int nbytes) {
  if (nbytes == 8 && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<std::uint64_t*>(p) = v;
    return;
  }
  for (int i = 0; i < nbytes; ++i) p[i] = reinterpret_cast<const char*>(&v)[i];
}

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

struct Transfer {
  int op;
  const char* src;
  char* dst;
  std::int64_t bytes;
};

// One primitive call: waits for the slots it needs, moves the words, publishes. False on abort.
template <typename T>
__device__ bool run_primitive(const KernelArgs& args, const DeviceTb& tb, int step, const Transfer& t,
                              std::uint64_t* sent, std::uint64_t* received) {
  const bool sends = t.op == kSend || t.op == kRecvCopySend || t.op == kRecvReduceSend || t.op == kRecvReduceCopySend;
  const bool receives = t.op != kSend && t.op != kCopy && t.op != kReduce;
  const DeviceConnection* out = sends ? &args.connections[tb.send] : nullptr;
  const DeviceConnection* in = receives ? &args.connections[tb.recv] : nullptr;
  const bool ll = args.protocol == kProtoLL;
  bool failed = false;
  if (threadIdx.x == 0) {
    if (sends) failed = !spin(args, tb, step, 2, [&] { return *out->head + out->capacity > *sent; });
    if (receives && !ll && !failed) failed = !spin(args, tb, step, 3, [&] { return *in->tail > *received; });
    __threadfence();
  }
  if (__syncthreads_or(failed)) return false;
  std::uint64_t* out_ring = sends ? out->ring + (*sent % out->capacity) * out->transfer_words : nullptr;
  const std::uint64_t* in_ring = receives ? in->ring + (*received % in->capacity) * in->transfer_words : nullptr;
  const auto out_flag = static_cast<std::uint32_t>(*sent + 1);
  const auto in_flag = static_cast<std::uint32_t>(*received + 1);
  const std::int64_t words = (t.bytes + 7) / 8;
  for (std::int64_t w = threadIdx.x; w < words && !failed; w += blockDim.x) {
    const int nb = static_cast<int>(t.bytes - w * 8 < 8 ? t.bytes - w * 8 : 8);
    std::uint64_t v = 0;
    if (receives) {
      if (ll) failed = !spin(args, tb, step, 3, [&] { return ll_load(in_ring + 2 * w, in_flag, &v); });
      else v = reinterpret_cast<const volatile std::uint64_t*>(in_ring)[w];
    }
    if (t.op == kSend || t.op == kCopy) v = load_word(t.src + w * 8, nb);
    if (t.op == kReduce) v = reduce_word<T>(args.red_op, load_word(t.dst + w * 8, nb), load_word(t.src + w * 8, nb));
    if (t.op == kRecvReduceSend || t.op == kRecvReduceCopy || t.op == kRecvReduceCopySend)
      v = reduce_word<T>(args.red_op, v, load_word(t.src + w * 8, nb));
    if (t.dst != nullptr) store_word(t.dst + w * 8, v, nb);
    if (sends) {
      if (ll) ll_store(out_ring + 2 * w, v, out_flag);
      else out_ring[w] = v;
    }
  }
  if (sends && !ll) __threadfence_system();
  if (__syncthreads_or(failed)) return false;
  if (threadIdx.x == 0) {
    if (sends && !ll) *out->tail = *sent + 1;
    if (receives) *in->head = *received + 1;
    if (sends) ++*sent;
    if (receives) ++*received;
  }
  __syncthreads();
  return true;
}

__device__ char* chunk_address(const KernelArgs& args, const DeviceRank& rank, int buf, int chunk, std::int64_t tile_offset) {
  return rank.buffers[buf] + (chunk * args.chunk_elems + tile_offset) * args.elem_bytes;
}

// Runs one step on one tile of each of its chunks, in groups of max_allowed_count chunks per primitive.
template <typename T>
__device__ bool run_step(const KernelArgs& args, const DeviceTb& tb, int s, const DeviceStep& step,
                         std::int64_t tile_offset, std::int64_t tile_len, std::uint64_t* sent, std::uint64_t* received) {
  const DeviceRank& rank = args.ranks[tb.rank];
  const bool reads_src = step.op != kRecv && step.op != kRecvCopySend;
  const bool writes_dst = step.op != kSend && step.op != kRecvReduceSend;
  for (int done = 0; done < step.count; done += args.max_allowed_count) {
    const int group = step.count - done < args.max_allowed_count ? step.count - done : args.max_allowed_count;
    Transfer t{step.op, nullptr, nullptr, ((group - 1) * args.chunk_elems + tile_len) * args.elem_bytes};
    if (reads_src) t.src = chunk_address(args, rank, step.src_buf, step.src_off + done, tile_offset);
    if (writes_dst) t.dst = chunk_address(args, rank, step.dst_buf, step.dst_off + done, tile_offset);
    if (!run_primitive<T>(args, tb, s, t, sent, received)) return false;
  }
  return true;
}

template <typename T>
__global__ void interpreter_kernel(KernelArgs args) {
  const DeviceTb tb = args.tbs[blockIdx.x];
  const DeviceRank& rank = args.ranks[tb.rank];
  __shared__ std::uint64_t sent, received;
  if (threadIdx.x == 0) {
    sent = tb.send >= 0 ? *args.connections[tb.send].sent : 0;
    received = tb.recv >= 0 ? *args.connections[tb.recv].received : 0;
  }
  __syncthreads();
  for (std::int64_t tile = 0; tile < args.iterations; ++tile) {
    const std::uint64_t iteration = args.call_index * args.iterations + tile;
    const std::int64_t tile_offset = tile * args.tile_elems;
    const std::int64_t tile_len = args.chunk_elems - tile_offset < args.tile_elems ? args.chunk_elems - tile_offset : args.tile_elems;
    for (int s = 0; s < tb.nsteps; ++s) {
      const DeviceStep step = args.steps[tb.first_step + s];
      bool failed = false;
      if (threadIdx.x == 0 && step.dep_tb >= 0) {
        const std::uint64_t target = iteration * kFlagStride + step.dep_step + 1;
        failed = !spin(args, tb, s, 1, [&] { return rank.tb_flags[step.dep_tb] >= target; });
        __threadfence();
      }
      if (__syncthreads_or(failed)) return;
      if (step.op != kNop && !run_step<T>(args, tb, s, step, tile_offset, tile_len, &sent, &received)) return;
      if (step.has_dep) {
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) rank.tb_flags[tb.tb] = iteration * kFlagStride + s + 1;
      }
    }
  }
  if (threadIdx.x == 0) {
    if (tb.send >= 0) *args.connections[tb.send].sent = sent;
    if (tb.recv >= 0) *args.connections[tb.recv].received = received;
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

cudaError_t max_coresident_blocks(DeviceType type, int device, int threads, int* blocks) {
  int sms = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess) return e;
  return dispatch(type, [&](auto tag) {
    int per_sm = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, interpreter_kernel<typename decltype(tag)::type>, threads, 0);
    *blocks = per_sm * sms;
    return e;
  });
}

cudaError_t launch_interpreter(DeviceType type, const KernelArgs& args, int blocks, int threads, cudaStream_t stream) {
  return dispatch(type, [&](auto tag) {
    KernelArgs copy = args;
    void* params[] = {&copy};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(interpreter_kernel<typename decltype(tag)::type>), dim3(blocks),
                                       dim3(threads), params, 0, stream);
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
