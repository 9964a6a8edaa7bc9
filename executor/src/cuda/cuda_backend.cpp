// Host side of the cuda backend: builds the device tables for an algorithm, places ranks on GPUs
// (rank r on GPU r mod #GPUs, each with its own buffers), maps peers, launches one cooperative kernel
// per GPU per collective call and turns a watchdog abort into a one-line error.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ccforge/executor/executor.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/interpreter.hpp"
#include "cuda/nccl_baseline.hpp"
#include "plan.hpp"

namespace ccforge::executor {
namespace cuda {
namespace {

using ConnectionKey = std::tuple<int, int, int>;  // (sender rank, receiver rank, channel)

// A DataType casts to its DeviceType (device_program.hpp keeps NCCL's order too).
static_assert(kInt8 == static_cast<int>(DataType::Int8) && kUint64 == static_cast<int>(DataType::Uint64) &&
              kHalf == static_cast<int>(DataType::Half) && kBFloat16 == static_cast<int>(DataType::BFloat16));

DeviceOp to_device(ir::OpType t) {
  switch (t) {
    case ir::OpType::Send: return kSend;
    case ir::OpType::Recv: return kRecv;
    case ir::OpType::RecvCopySend: return kRecvCopySend;
    case ir::OpType::RecvReduceSend: return kRecvReduceSend;
    case ir::OpType::RecvReduceCopy: return kRecvReduceCopy;
    case ir::OpType::RecvReduceCopySend: return kRecvReduceCopySend;
    case ir::OpType::Copy: return kCopy;
    case ir::OpType::Reduce: return kReduce;
    case ir::OpType::Nop: return kNop;
  }
  return kNop;
}

DeviceStep to_device(const ir::Step& s) {
  const auto buf = [](ir::BufferKind k) { return static_cast<std::int8_t>(k == ir::BufferKind::Input ? kInput : k == ir::BufferKind::Output ? kOutput : kScratch); };
  return DeviceStep{to_device(s.type), buf(s.src_buf), buf(s.dst_buf), static_cast<std::int8_t>(s.has_dep), s.src_off, s.dst_off, s.count, s.dep_tb, s.dep_step};
}

// Measurement knobs, read once per backend: CCFORGE_CUDA_DATA_PATH=narrow selects the 8-byte one-in-flight
// data path, CCFORGE_CUDA_MAX_THREADS caps the block size (a multiple of 32 from 32 to 640), so that one
// GPU run can time what each choice buys (bench/gpu/, scripts/gpu-executor-check.sh).
struct LaunchShape {
  DataPath path = DataPath::Wide;
  int max_threads = kMaxThreadsPerBlock;
};

LaunchShape launch_shape_from_environment() {
  LaunchShape shape;
  if (const char* path = std::getenv("CCFORGE_CUDA_DATA_PATH")) {
    const std::string p = path;
    if (p != "wide" && p != "narrow")
      throw DiagError(Diag{{"CCFORGE_CUDA_DATA_PATH", 0}, "unknown data path '" + p + "'", "set it to wide or narrow, or unset it"});
    shape.path = p == "wide" ? DataPath::Wide : DataPath::Narrow;
  }
  if (const char* threads = std::getenv("CCFORGE_CUDA_MAX_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(threads, &end, 10);
    if (end == threads || *end != '\0' || n < kMinThreadsPerBlock || n > kMaxThreadsPerBlock || n % 32 != 0)
      throw DiagError(Diag{{"CCFORGE_CUDA_MAX_THREADS", 0}, "'" + std::string(threads) + "' is not a block size",
                           "set it to a multiple of 32 from " + std::to_string(kMinThreadsPerBlock) + " to " + std::to_string(kMaxThreadsPerBlock)});
    shape.max_threads = static_cast<int>(n);
  }
  return shape;
}

void enable_peer_access(int devices) {
  for (int a = 0; a < devices; ++a) {
    for (int b = 0; b < devices; ++b) {
      if (a == b) continue;
      int can = 0;
      check_cuda(cudaDeviceCanAccessPeer(&can, a, b), "cudaDeviceCanAccessPeer");
      if (!can)
        throw DiagError(Diag{{"--device cuda", 0}, "GPU " + std::to_string(a) + " cannot map GPU " + std::to_string(b) + "'s memory (no P2P)",
                             "run with --nranks on one GPU, or on GPUs joined by NVLink or one PCIe switch"});
      check_cuda(cudaSetDevice(a), "cudaSetDevice");
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e != cudaErrorPeerAccessAlreadyEnabled) check_cuda(e, "cudaDeviceEnablePeerAccess");
      cudaGetLastError();  // clear the already-enabled error
    }
  }
}

class CudaRun {
 public:
  CudaRun(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan, int devices, const ExecOptions& options, LaunchShape shape)
      : algo_(algo), call_(call), plan_(plan), devices_(devices), options_(options), shape_(shape) {
    status_ = memory_.host_mapped<DeviceStatus>(1);
    abort_ = memory_.host_mapped<std::int32_t>(1);
    tbs_.resize(static_cast<std::size_t>(devices_));
    for (int r = 0; r < algo.ngpus; ++r) allocate_rank(r);
    for (int r = 0; r < algo.ngpus; ++r) add_threadblocks(r);
  }

  void upload(const std::vector<RankBuffers>& buffers) { copy_buffers(const_cast<std::vector<RankBuffers>&>(buffers), cudaMemcpyHostToDevice); }
  void download(std::vector<RankBuffers>& buffers) { copy_buffers(buffers, cudaMemcpyDeviceToHost); }

  Timing execute(int calls) {
    std::vector<KernelArgs> args = kernel_args();
    std::vector<cudaStream_t> streams(static_cast<std::size_t>(devices_));
    for (int d = 0; d < devices_; ++d) {
      check_cuda(cudaSetDevice(d), "cudaSetDevice");
      check_cuda(cudaStreamCreateWithFlags(&streams[static_cast<std::size_t>(d)], cudaStreamNonBlocking), "cudaStreamCreate");
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) {
      for (int d = 0; d < devices_; ++d) {
        const auto blocks = static_cast<int>(tbs_[static_cast<std::size_t>(d)].size());
        if (blocks == 0) continue;
        args[static_cast<std::size_t>(d)].call_index = static_cast<std::uint64_t>(c);
        check_cuda(cudaSetDevice(d), "cudaSetDevice");
        check_cuda(launch_interpreter(static_cast<DeviceType>(call_.dtype), shape_.path, args[static_cast<std::size_t>(d)], blocks, threads_[static_cast<std::size_t>(d)],
                                      streams[static_cast<std::size_t>(d)]),
                   "launching the interpreter with " + std::to_string(blocks) + " blocks");
      }
      launch_average_divisions(streams);
    }
    for (int d = 0; d < devices_; ++d) {
      check_cuda(cudaSetDevice(d), "cudaSetDevice");
      check_cuda(cudaStreamSynchronize(streams[static_cast<std::size_t>(d)]), "interpreter kernel");
      cudaStreamDestroy(streams[static_cast<std::size_t>(d)]);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (status_->code != 0) throw DiagError(watchdog_report());
    return Timing{std::chrono::duration<double, std::micro>(t1 - t0).count() / calls, calls};
  }

  // ncclAvg: every rank holding a result divides it by the rank count after each call, on its GPU's stream.
  void launch_average_divisions(const std::vector<cudaStream_t>& streams) {
    if (call_.op != RedOp::Avg || !applies_reduction(call_.collective)) return;
    for (int r = 0; r < algo_.ngpus; ++r) {
      if (!receives_result(call_, r)) continue;
      const int d = device_of(r);
      check_cuda(cudaSetDevice(d), "cudaSetDevice");
      const auto n = static_cast<std::int64_t>(buffer_layout(call_, algo_.ngpus, r).recv_elems);
      check_cuda(launch_divide(static_cast<DeviceType>(call_.dtype), ranks_[static_cast<std::size_t>(r)].buffers[kOutput], n, algo_.ngpus,
                               streams[static_cast<std::size_t>(d)]),
                 "launching the average's division");
    }
  }

  // Picks per GPU the largest block size (halved, in whole warps) at which all its threadblocks are
  // co-resident.
  void choose_block_sizes() {
    threads_.assign(static_cast<std::size_t>(devices_), shape_.max_threads);
    for (int d = 0; d < devices_; ++d) {
      const auto need = static_cast<int>(tbs_[static_cast<std::size_t>(d)].size());
      int& threads = threads_[static_cast<std::size_t>(d)];
      int fit = 0;
      for (;; threads = std::max(kMinThreadsPerBlock, threads / 2 / 32 * 32)) {
        check_cuda(max_coresident_blocks(static_cast<DeviceType>(call_.dtype), shape_.path, d, threads, &fit), "occupancy query");
        if (fit >= need || threads == kMinThreadsPerBlock) break;
      }
      if (need > fit)
        throw DiagError(Diag{{algo_.source_file, 0}, "GPU " + std::to_string(d) + " must run " + std::to_string(need) +
                                 " threadblocks at once but only " + std::to_string(fit) + " fit even at " + std::to_string(threads) +
                                 " threads each (they spin-wait on each other)",
                             "use more GPUs or an algorithm with fewer threadblocks per rank"});
    }
  }

 private:
  int device_of(int rank) const { return rank % devices_; }

  void allocate_rank(int r) {
    const int d = device_of(r);
    const BufferLayout layout = buffer_layout(call_, algo_.ngpus, r);
    DeviceRank rank{};
    if (call_.inplace) {
      char* base = memory_.device(d, layout.inplace_elems * plan_.elem_bytes);
      rank.buffers[kInput] = base + layout.inplace_send_offset * plan_.elem_bytes;
      rank.buffers[kOutput] = base + layout.inplace_recv_offset * plan_.elem_bytes;
      recv_base_.push_back(base);
    } else {
      rank.buffers[kInput] = memory_.device(d, layout.send_elems * plan_.elem_bytes);
      rank.buffers[kOutput] = memory_.device(d, layout.recv_elems * plan_.elem_bytes);
      recv_base_.push_back(rank.buffers[kOutput]);
    }
    rank.buffers[kScratch] = memory_.device(d, buffer_elems(algo_, call_, plan_, r, ir::BufferKind::Scratch) * plan_.elem_bytes);
    rank.tb_flags = memory_.device<std::uint64_t>(d, algo_.gpus[static_cast<std::size_t>(r)].tbs.size() * sizeof(std::uint64_t));
    ranks_.push_back(rank);
  }

  // The connection's data ring and tail sit on the receiver's GPU, head on the sender's.
  int connection(int from, int to, int channel, bool as_sender, int tb) {
    auto [it, inserted] = connection_index_.try_emplace(ConnectionKey{from, to, channel}, static_cast<int>(connections_.size()));
    if (inserted) {
      const int slots = ir::steps_per_tile(algo_.protocol == ir::Protocol::LL ? ir::Protocol::LL : ir::Protocol::Simple);
      DeviceConnection c{};
      c.capacity = std::max(1, options_.slots_per_connection / slots);
      c.transfer_words = static_cast<std::int64_t>((ir::tile_bytes(algo_.protocol) + 7) / 8) * (algo_.protocol == ir::Protocol::LL ? 2 : 1);
      c.ring = memory_.device<std::uint64_t>(device_of(to), static_cast<std::size_t>(c.capacity * c.transfer_words) * 8);
      c.tail = memory_.device<std::uint64_t>(device_of(to), 8);
      c.received = memory_.device<std::uint64_t>(device_of(to), 8);
      c.head = memory_.device<std::uint64_t>(device_of(from), 8);
      c.sent = memory_.device<std::uint64_t>(device_of(from), 8);
      connections_.push_back(c);
      endpoints_.push_back({-1, -1});
    }
    int& owner = as_sender ? endpoints_[static_cast<std::size_t>(it->second)].first : endpoints_[static_cast<std::size_t>(it->second)].second;
    if (owner >= 0 && owner != tb)
      throw DiagError(Diag{{algo_.source_file, 0}, "rank " + std::to_string(as_sender ? from : to) + " tbs " + std::to_string(owner) + " and " +
                               std::to_string(tb) + " both " + (as_sender ? "send to rank " + std::to_string(to) : "receive from rank " + std::to_string(from)) +
                               " on channel " + std::to_string(channel),
                           "give each (peer, channel) one sending and one receiving tb, as the executor requires"});
    owner = tb;
    return it->second;
  }

  void add_threadblocks(int r) {
    for (const ir::ThreadBlock& tb : algo_.gpus[static_cast<std::size_t>(r)].tbs) {
      DeviceTb t{r, tb.id, static_cast<std::int32_t>(steps_.size()), static_cast<std::int32_t>(tb.steps.size()), -1, -1};
      if (tb.send_peer >= 0) t.send = connection(r, tb.send_peer, tb.channel, true, tb.id);
      if (tb.recv_peer >= 0) t.recv = connection(tb.recv_peer, r, tb.channel, false, tb.id);
      for (const ir::Step& s : tb.steps) steps_.push_back(to_device(s));
      tbs_[static_cast<std::size_t>(device_of(r))].push_back(t);
    }
  }

  std::vector<KernelArgs> kernel_args() {
    std::vector<KernelArgs> out;
    for (int d = 0; d < devices_; ++d) {
      KernelArgs a{};
      a.tbs = memory_.upload(d, tbs_[static_cast<std::size_t>(d)]);
      a.steps = memory_.upload(d, steps_);
      a.ranks = memory_.upload(d, ranks_);
      a.connections = memory_.upload(d, connections_);
      a.status = status_;
      a.abort = abort_;
      a.chunk_elems = static_cast<std::int64_t>(plan_.chunk_elems);
      a.tile_elems = static_cast<std::int64_t>(plan_.tile_elems);
      a.iterations = static_cast<std::int64_t>(plan_.iterations);
      a.max_allowed_count = plan_.max_allowed_count;
      a.elem_bytes = static_cast<std::int32_t>(plan_.elem_bytes);
      a.red_op = static_cast<std::int32_t>(call_.op == RedOp::Avg ? RedOp::Sum : call_.op);  // avg divides afterwards
      a.protocol = algo_.protocol == ir::Protocol::LL ? kProtoLL : kProtoSimple;
      a.timeout_ns = static_cast<std::uint64_t>(options_.watchdog.count()) * 1000000u;
      out.push_back(a);
    }
    return out;
  }

  void copy_buffers(std::vector<RankBuffers>& buffers, cudaMemcpyKind kind) {
    for (int r = 0; r < algo_.ngpus; ++r) {
      RankBuffers& b = buffers[static_cast<std::size_t>(r)];
      check_cuda(cudaSetDevice(device_of(r)), "cudaSetDevice");
      char* recv = recv_base_[static_cast<std::size_t>(r)];
      const auto copy = [&](void* dst, const void* src, std::size_t n) { check_cuda(cudaMemcpy(dst, src, n, kind), "cudaMemcpy"); };
      if (kind == cudaMemcpyHostToDevice) {
        copy(recv, b.recv.data(), b.recv.size());
        if (!call_.inplace) copy(ranks_[static_cast<std::size_t>(r)].buffers[kInput], b.send.data(), b.send.size());
      } else {
        copy(b.recv.data(), recv, b.recv.size());
      }
    }
  }

  Diag watchdog_report() const {
    static constexpr const char* kWaits[] = {"", "waits on a dependency", "waits for a free send slot", "waits to receive"};
    const int r = status_->rank, tb = status_->tb, s = status_->step;
    const ir::Step& step = algo_.gpus[static_cast<std::size_t>(r)].tbs[static_cast<std::size_t>(tb)].steps[static_cast<std::size_t>(s)];
    return Diag{{algo_.source_file, step.line},
                "deadlock: GPU watchdog fired after " + std::to_string(options_.watchdog.count()) + " ms; rank " + std::to_string(r) +
                    " tb " + std::to_string(tb) + " step " + std::to_string(s) + " " + kWaits[status_->waiting & 3],
                "run `ccforge ir check` on the algorithm: its sends, receives or dependencies do not pair up"};
  }

  const ir::Algorithm& algo_;
  const CallSpec& call_;
  const ChunkPlan& plan_;
  int devices_;
  ExecOptions options_;
  LaunchShape shape_;
  DeviceMemory memory_;
  DeviceStatus* status_ = nullptr;
  std::int32_t* abort_ = nullptr;
  std::vector<DeviceRank> ranks_;
  std::vector<char*> recv_base_;
  std::vector<DeviceStep> steps_;
  std::vector<std::vector<DeviceTb>> tbs_;
  std::vector<int> threads_;  // block size per GPU
  std::vector<DeviceConnection> connections_;
  std::vector<std::pair<int, int>> endpoints_;  // (sending tb, receiving tb) per connection
  std::map<ConnectionKey, int> connection_index_;
};

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(int devices, ExecOptions options) : devices_(devices), options_(options), shape_(launch_shape_from_environment()) {
    enable_peer_access(devices);
  }
  std::string name() const override { return "cuda"; }

  Timing run(const ir::Algorithm& algo, const CallSpec& call, std::vector<RankBuffers>& buffers, int iterations) override {
    const ChunkPlan plan = plan_chunks(algo, call);
    check_runnable(algo, call, plan);
    check_buffers(algo, call, buffers);
    CudaRun run(algo, call, plan, std::min(devices_, algo.ngpus), options_, shape_);
    run.choose_block_sizes();
    run.upload(buffers);
    const Timing t = run.execute(iterations);
    run.download(buffers);
    return t;
  }

  std::optional<Timing> run_baseline(const CallSpec& call, std::vector<RankBuffers>& buffers, int iterations) override {
    if (devices_ < 2 || static_cast<int>(buffers.size()) != devices_) return std::nullopt;
    if (!nccl_) nccl_ = std::make_unique<NcclBaseline>(devices_);
    return nccl_->run(call, buffers, iterations);
  }

 private:
  int devices_;
  ExecOptions options_;
  LaunchShape shape_;
  std::unique_ptr<NcclBaseline> nccl_;
};

}  // namespace
}  // namespace cuda

std::optional<std::string> cuda_unavailable_reason() {
  if (cuda::device_count() == 0) return "no CUDA GPU is visible (cudaGetDeviceCount found none)";
  return std::nullopt;
}

std::unique_ptr<Backend> make_cuda_backend(ExecOptions options) {
  if (auto reason = cuda_unavailable_reason()) throw DiagError(Diag{{"--device cuda", 0}, *reason, "use --device host"});
  return std::make_unique<cuda::CudaBackend>(cuda::device_count(), options);
}

}  // namespace ccforge::executor
