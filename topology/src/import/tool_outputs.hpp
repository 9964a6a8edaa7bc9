// The side inputs of an import: `nvidia-smi -q` (GPU models and bus ids) and `ibv_devinfo -v` or
// `ibstat` (NIC port rates).
#pragma once

#include "ccforge/topology/gpu_models.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ccforge::topo {

struct GpuQuery {
  std::string file;
  const GpuModel* model = nullptr;
  std::string product;         // as nvidia-smi prints it, e.g. "NVIDIA H100 80GB HBM3"
  std::vector<std::string> busids;  // dddd:bb:dd.f, one per GPU in nvidia-smi's order
  int first_line = 0;
};

// One model for every GPU; an unknown or mixed product is a DiagError at its line.
GpuQuery read_gpu_query(const std::filesystem::path& path);

struct NicRate {
  double gbps = 0;
  int line = 0;
};
// Active rate of each device's first port, by device name ("mlx5_0").
std::map<std::string, NicRate> read_nic_rates(const std::filesystem::path& path);

}  // namespace ccforge::topo
