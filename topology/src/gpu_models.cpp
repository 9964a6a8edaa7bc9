#include "ccforge/topology/gpu_models.hpp"

#include <array>
#include <stdexcept>

namespace ccforge::topo {
namespace {

// Per GPU, from the vendors' datasheets and architecture whitepapers; memory is the largest variant's,
// so that a warning about sizes that cannot fit holds for every variant.
constexpr std::array<GpuModel, 8> kGpuModels{{
    {"V100 SXM2", 70, GpuArch::Volta, 6, 6, 300.0, "NVIDIA Tesla V100 datasheet: NVLink2 300 GB/s over 6 links", 900.0,
     "NVIDIA V100 SXM2 datasheet, HBM2 900 GB/s", 80, 32, "NVIDIA Tesla V100 datasheet: 16 or 32 GB HBM2; V100 whitepaper: 80 SMs"},
    {"A100 SXM", 80, GpuArch::Ampere, 12, 12, 600.0, "NVIDIA A100 datasheet: NVLink3 600 GB/s over 12 links", 2039.0,
     "NVIDIA A100 80GB SXM datasheet, HBM2e 2,039 GB/s", 108, 80, "NVIDIA A100 datasheet: 40 or 80 GB HBM2e; A100 whitepaper: 108 SMs"},
    {"A100 PCIe", 80, GpuArch::Ampere, 12, 0, 600.0, "NVIDIA A100 datasheet: NVLink bridge 600 GB/s, optional", 1935.0,
     "NVIDIA A100 80GB PCIe datasheet, HBM2e 1,935 GB/s", 108, 80, "NVIDIA A100 datasheet: 40 or 80 GB HBM2e; A100 whitepaper: 108 SMs"},
    {"H100 SXM", 90, GpuArch::Hopper, 18, 18, 900.0, "NVIDIA H100 SXM datasheet: NVLink4 900 GB/s over 18 links", 3350.0,
     "NVIDIA H100 SXM5 datasheet, HBM3 3.35 TB/s", 132, 80, "NVIDIA H100 datasheet: 80 GB HBM3; H100 whitepaper: 132 SMs (SXM5)"},
    {"H100 PCIe", 90, GpuArch::Hopper, 12, 0, 600.0, "NVIDIA H100 datasheet: NVLink bridge 600 GB/s, optional", 2000.0,
     "NVIDIA H100 PCIe datasheet, HBM2e 2 TB/s", 114, 80, "NVIDIA H100 datasheet: 80 GB HBM2e; H100 whitepaper: 114 SMs (PCIe)"},
    {"H200 SXM", 90, GpuArch::Hopper, 18, 18, 900.0, "NVIDIA H200 datasheet: NVLink4 900 GB/s over 18 links", 4800.0,
     "NVIDIA H200 SXM datasheet, HBM3e 4.8 TB/s", 132, 141,
     "NVIDIA H200 datasheet: 141 GB HBM3e; the H100 SXM5's 132 SMs (same GH100 die)"},
    {"B200", 100, GpuArch::Blackwell, 18, 18, 1800.0, "NVIDIA DGX B200 datasheet: NVLink5 1.8 TB/s over 18 links", 8000.0,
     "NVIDIA DGX B200 datasheet, HBM3e 8 TB/s per GPU", 148, 192,
     "NVIDIA Blackwell technical brief: 192 GB HBM3e (DGX B200: 180 GB usable); 148 SMs as CUDA reports them"},
    {"MI300X", 0, GpuArch::Cdna3, 8, 7, 1024.0,
     "AMD Instinct MI300X datasheet: 128 GB/s peak per Infinity Fabric link, bidirectional, 8 links", 5300.0,
     "AMD Instinct MI300X datasheet, HBM3 5.3 TB/s", 304, 192,
     "AMD Instinct MI300X datasheet: 8 Infinity Fabric links, 7 reach the peers of an 8-GPU platform; 192 GB HBM3; 304 CUs"},
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

const GpuModel& architecture_model(GpuArch arch) {
  for (const GpuModel& m : kGpuModels) {
    if (m.arch == arch && m.default_peer_links > 0) return m;
  }
  throw std::logic_error("the GPU catalogue has no SXM/OAM model of an architecture");
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
