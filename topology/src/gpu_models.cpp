#include "gpu_models.hpp"

#include <array>

namespace ccforge::topo {
namespace {

// Link counts, multiprocessors and memory are per GPU, from the vendors' datasheets and architecture
// whitepapers; memory is the largest variant's, so that a warning about sizes that cannot fit holds for
// every variant.
constexpr std::array<GpuModel, 8> kGpuModels{{
    {"V100 SXM2", 70, GpuArch::Volta, 6, 6, 80, 32,
     "NVIDIA Tesla V100 datasheet: 6 NVLink2 links, 300 GB/s; 16 or 32 GB HBM2; V100 whitepaper: 80 SMs"},
    {"A100 SXM", 80, GpuArch::Ampere, 12, 12, 108, 80,
     "NVIDIA A100 datasheet: 12 NVLink3 links, 600 GB/s; 40 or 80 GB HBM2e; A100 whitepaper: 108 SMs"},
    {"A100 PCIe", 80, GpuArch::Ampere, 12, 0, 108, 80,
     "NVIDIA A100 datasheet: NVLink only through optional bridges; 40 or 80 GB HBM2e; A100 whitepaper: 108 SMs"},
    {"H100 SXM", 90, GpuArch::Hopper, 18, 18, 132, 80,
     "NVIDIA H100 datasheet: 18 NVLink4 links, 900 GB/s; 80 GB HBM3; H100 whitepaper: 132 SMs (SXM5)"},
    {"H100 PCIe", 90, GpuArch::Hopper, 12, 0, 114, 80,
     "NVIDIA H100 datasheet: NVLink bridge 600 GB/s, optional; 80 GB HBM2e; H100 whitepaper: 114 SMs (PCIe)"},
    {"H200 SXM", 90, GpuArch::Hopper, 18, 18, 132, 141,
     "NVIDIA H200 datasheet: 18 NVLink4 links, 900 GB/s; 141 GB HBM3e; the H100 SXM5's 132 SMs (same GH100 die)"},
    {"B200", 100, GpuArch::Blackwell, 18, 18, 148, 192,
     "NVIDIA DGX B200 datasheet: 18 NVLink5 links, 1.8 TB/s; NVIDIA Blackwell technical brief: 192 GB HBM3e (DGX B200: "
     "180 GB usable); 148 SMs as CUDA reports them"},
    {"MI300X", 0, GpuArch::Cdna3, 8, 7, 304, 192,
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

std::optional<GpuSpec> gpu_spec(std::string_view model) {
  const GpuModel* m = find_gpu_model(model);
  if (!m) return std::nullopt;
  return GpuSpec{m->arch, m->multiprocessors, m->sm == 0};
}

std::uint64_t gpu_memory_bytes(std::string_view model) {
  const GpuModel* m = find_gpu_model(model);
  return m ? static_cast<std::uint64_t>(m->memory_gib) << 30 : 0;
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
