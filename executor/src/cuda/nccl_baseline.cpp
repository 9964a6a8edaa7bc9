#include "cuda/nccl_baseline.hpp"

#include <chrono>
#include <string>

#include "cuda/device_memory.hpp"

#ifdef CCFORGE_HAVE_NCCL
#include <nccl.h>
#endif

namespace ccforge::executor::cuda {

#ifdef CCFORGE_HAVE_NCCL
namespace {

void check_nccl(ncclResult_t r, const std::string& what) {
  if (r != ncclSuccess)
    throw DiagError(Diag{{"--device cuda", 0}, what + ": " + ncclGetErrorString(r), "set NCCL_DEBUG=WARN to see why"});
}

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::Half: return ncclHalf;
    case DataType::BFloat16: return ncclBfloat16;
    case DataType::Float: return ncclFloat;
    case DataType::Double: return ncclDouble;
    case DataType::Int8: return ncclInt8;
    case DataType::Uint8: return ncclUint8;
    case DataType::Int32: return ncclInt32;
    case DataType::Uint32: return ncclUint32;
    case DataType::Int64: return ncclInt64;
    case DataType::Uint64: return ncclUint64;
  }
  return ncclFloat;
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::Sum: return ncclSum;
    case RedOp::Prod: return ncclProd;
    case RedOp::Min: return ncclMin;
    case RedOp::Max: return ncclMax;
    case RedOp::Avg: return ncclAvg;
  }
  return ncclSum;
}

bool nccl_has(ir::Collective c) {
  using enum ir::Collective;
  return c == AllReduce || c == AllGather || c == ReduceScatter || c == AllToAll || c == Broadcast || c == Reduce;
}

}  // namespace

struct NcclBaseline::Comms {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
};

NcclBaseline::NcclBaseline(int devices) : comms_(std::make_unique<Comms>()) {
  comms_->comms.resize(static_cast<std::size_t>(devices));
  check_nccl(ncclCommInitAll(comms_->comms.data(), devices, nullptr), "ncclCommInitAll");
  for (int d = 0; d < devices; ++d) {
    cudaStream_t s;
    check_cuda(cudaSetDevice(d), "cudaSetDevice");
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    comms_->streams.push_back(s);
  }
}

NcclBaseline::~NcclBaseline() {
  for (ncclComm_t c : comms_->comms) ncclCommDestroy(c);
  for (cudaStream_t s : comms_->streams) cudaStreamDestroy(s);
}

std::optional<Timing> NcclBaseline::run(const CallSpec& call, std::vector<RankBuffers>& buffers, int iterations) {
  if (!nccl_has(call.collective)) return std::nullopt;
  const int n = static_cast<int>(buffers.size());
  const std::size_t elem = size_of(call.dtype);
  DeviceMemory memory;
  std::vector<char*> send(buffers.size()), recv(buffers.size());
  for (int r = 0; r < n; ++r) {
    const BufferLayout l = buffer_layout(call, n, r);
    auto& b = buffers[static_cast<std::size_t>(r)];
    recv[static_cast<std::size_t>(r)] = memory.device(r, b.recv.size());
    check_cuda(cudaMemcpy(recv[static_cast<std::size_t>(r)], b.recv.data(), b.recv.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    if (call.inplace) {
      send[static_cast<std::size_t>(r)] = recv[static_cast<std::size_t>(r)] + l.inplace_send_offset * elem;
      recv[static_cast<std::size_t>(r)] += l.inplace_recv_offset * elem;
    } else {
      send[static_cast<std::size_t>(r)] = memory.device(r, b.send.size());
      check_cuda(cudaMemcpy(send[static_cast<std::size_t>(r)], b.send.data(), b.send.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < n; ++r) {
      const auto i = static_cast<std::size_t>(r);
      ncclComm_t comm = comms_->comms[i];
      cudaStream_t s = comms_->streams[i];
      const auto t = nccl_type(call.dtype);
      switch (call.collective) {
        case ir::Collective::AllReduce: check_nccl(ncclAllReduce(send[i], recv[i], call.count, t, nccl_op(call.op), comm, s), "ncclAllReduce"); break;
        case ir::Collective::AllGather: check_nccl(ncclAllGather(send[i], recv[i], call.count, t, comm, s), "ncclAllGather"); break;
        case ir::Collective::ReduceScatter: check_nccl(ncclReduceScatter(send[i], recv[i], call.count, t, nccl_op(call.op), comm, s), "ncclReduceScatter"); break;
        case ir::Collective::Broadcast: check_nccl(ncclBroadcast(send[i], recv[i], call.count, t, call.root, comm, s), "ncclBroadcast"); break;
        case ir::Collective::Reduce: check_nccl(ncclReduce(send[i], recv[i], call.count, t, nccl_op(call.op), call.root, comm, s), "ncclReduce"); break;
        default:  // alltoall: one send and one receive of `count` elements per peer
          for (int p = 0; p < n; ++p) {
            check_nccl(ncclSend(send[i] + static_cast<std::size_t>(p) * call.count * elem, call.count, t, p, comm, s), "ncclSend");
            check_nccl(ncclRecv(recv[i] + static_cast<std::size_t>(p) * call.count * elem, call.count, t, p, comm, s), "ncclRecv");
          }
      }
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }
  for (int r = 0; r < n; ++r) {
    check_cuda(cudaSetDevice(r), "cudaSetDevice");
    check_cuda(cudaStreamSynchronize(comms_->streams[static_cast<std::size_t>(r)]), "NCCL collective");
  }
  const auto t1 = std::chrono::steady_clock::now();
  for (int r = 0; r < n; ++r) {
    auto& b = buffers[static_cast<std::size_t>(r)];
    const char* base = call.inplace ? recv[static_cast<std::size_t>(r)] - buffer_layout(call, n, r).inplace_recv_offset * elem : recv[static_cast<std::size_t>(r)];
    check_cuda(cudaMemcpy(b.recv.data(), base, b.recv.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  return Timing{std::chrono::duration<double, std::micro>(t1 - t0).count() / iterations, iterations};
}

#else

struct NcclBaseline::Comms {};
NcclBaseline::NcclBaseline(int) {}
NcclBaseline::~NcclBaseline() = default;
std::optional<Timing> NcclBaseline::run(const CallSpec&, std::vector<RankBuffers>&, int) { return std::nullopt; }

#endif

}  // namespace ccforge::executor::cuda
