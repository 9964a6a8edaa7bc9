// GPU check (scripts/gpu-check.sh): a one-rank NCCL communicator on GPU 0 with the tuner plugin named
// by NCCL_TUNER_PLUGIN, one allreduce, then teardown. NCCL's log (NCCL_DEBUG=INFO) shows whether the
// plugin was loaded and initialised; exits non-zero when NCCL or CUDA reports an error.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "nccl_tuner_load_check: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}
bool ok(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) std::fprintf(stderr, "nccl_tuner_load_check: %s: %s\n", what, ncclGetErrorString(r));
  return r == ncclSuccess;
}

}  // namespace

int main() {
  constexpr size_t kCount = 1 << 18;  // 1 MiB of floats
  int device = 0;
  ncclComm_t comm = nullptr;
  float* buffer = nullptr;
  cudaStream_t stream = nullptr;
  const bool good = ok(cudaSetDevice(device), "cudaSetDevice") && ok(cudaStreamCreate(&stream), "cudaStreamCreate") &&
                    ok(cudaMalloc(&buffer, kCount * sizeof(float)), "cudaMalloc") &&
                    ok(ncclCommInitAll(&comm, 1, &device), "ncclCommInitAll") &&
                    ok(ncclAllReduce(buffer, buffer, kCount, ncclFloat, ncclSum, comm, stream), "ncclAllReduce") &&
                    ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize") &&
                    ok(ncclCommDestroy(comm), "ncclCommDestroy");
  if (buffer) cudaFree(buffer);
  if (stream) cudaStreamDestroy(stream);
  std::printf("nccl_tuner_load_check: %s\n", good ? "ok" : "FAILED");
  return good ? 0 : 1;
}
