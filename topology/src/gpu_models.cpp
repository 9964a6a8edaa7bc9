#include "gpu_models.hpp"

#include <array>

namespace ccforge::topo {
namespace {

// Link counts are per GPU, from the vendors' datasheets.
constexpr std::array<GpuModel, 7> kGpuModels{{
    {"V100 SXM2", 70, GpuArch::Volta, 6, 6, "NVIDIA Tesla V100 datasheet: 6 NVLink2 links, 300 GB/s"},
    {"A100 SXM", 80, GpuArch::Ampere, 12, 12, "NVIDIA A100 datasheet: 12 NVLink3 links, 600 GB/s"},
    {"A100 PCIe", 80, GpuArch::Ampere, 12, 0, "NVIDIA A100 datasheet: NVLink only through optional bridges"},
    {"H100 SXM", 90, GpuArch::Hopper, 18, 18, "NVIDIA H100 datasheet: 18 NVLink4 links, 900 GB/s"},
    {"H100 PCIe", 90, GpuArch::Hopper, 12, 0, "NVIDIA H100 datasheet: NVLink bridge 600 GB/s, optional"},
    {"B200", 100, GpuArch::Blackwell, 18, 18, "NVIDIA DGX B200 datasheet: 18 NVLink5 links, 1.8 TB/s"},
    {"MI300X", 0, GpuArch::Cdna3, 8, 7,
     "AMD Instinct MI300X datasheet: 8 Infinity Fabric links; 7 reach the peers of an 8-GPU platform"},
}};

}  // namespace

const GpuModel* find_gpu_model(std::string_view name) {
  for (const GpuModel& m : kGpuModels) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

const GpuModel* gpu_model_for_sm(int sm) {
  for (const GpuModel& m : kGpuModels) {
    if (m.sm == sm && m.sm != 0 && m.default_peer_links > 0) return &m;
  }
  return nullptr;
}

const GpuModel* gpu_model_for_gcn(std::string_view gcn) {
  // gfx942 is the CDNA3 ISA of MI300X (AMD ROCm "GPU hardware specifications" table).
  return gcn == "gfx942" ? find_gpu_model("MI300X") : nullptr;
}

std::string known_gpu_models() {
  std::string out;
  for (const GpuModel& m : kGpuModels) {
    if (!out.empty()) out += ", ";
    out += m.name;
  }
  return out;
}

}  // namespace ccforge::topo
