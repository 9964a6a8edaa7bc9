// RAII ownership of the device and host-mapped allocations of one cuda run, and CUDA error reporting.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "ccforge/common/diag.hpp"

namespace ccforge::executor::cuda {

inline void check_cuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw DiagError(Diag{{"--device cuda", 0}, what + ": " + cudaGetErrorString(e), "check the GPU with nvidia-smi"});
}

class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() {
    for (const auto& [device, ptr] : device_) {
      cudaSetDevice(device);
      cudaFree(ptr);
    }
    for (void* ptr : host_) cudaFreeHost(ptr);
  }

  // Zero-filled device memory on `device`; at least 8 bytes so that every pointer is valid.
  template <typename T = char>
  T* device(int device, std::size_t bytes) {
    bytes = bytes < 8 ? 8 : bytes;
    void* ptr = nullptr;
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaMalloc(&ptr, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
    device_.push_back({device, ptr});
    check_cuda(cudaMemset(ptr, 0, bytes), "cudaMemset");
    return static_cast<T*>(ptr);
  }

  // Zero-filled pinned host memory mapped into every device's address space (UVA).
  template <typename T>
  T* host_mapped(std::size_t count) {
    void* ptr = nullptr;
    check_cuda(cudaHostAlloc(&ptr, sizeof(T) * count, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
    host_.push_back(ptr);
    std::memset(ptr, 0, sizeof(T) * count);
    return static_cast<T*>(ptr);
  }

  // Copies a host table to `device`.
  template <typename T>
  const T* upload(int device, const std::vector<T>& table) {
    T* ptr = this->device<T>(device, table.size() * sizeof(T));
    check_cuda(cudaMemcpy(ptr, table.data(), table.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    return ptr;
  }

 private:
  std::vector<std::pair<int, void*>> device_;
  std::vector<void*> host_;
};

}  // namespace ccforge::executor::cuda
