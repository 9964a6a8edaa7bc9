// The one catalogue of GPU models ccforge knows: each part's identity (name, compute capability,
// architecture) and its datasheet values (peer links and their bandwidth, HBM bandwidth, memory,
// multiprocessors), each with its source. A loaded GPU points at its row (GpuInfo::model); the link
// model's NVLink/xGMI defaults and the simulator's HBM defaults read their architecture's row.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ccforge::topo {

// GPU architecture by compute capability; selects per-architecture model constants.
enum class GpuArch { Volta, Ampere, Hopper, Blackwell, Cdna3 };

struct GpuModel {
  const char* name;          // "H100 SXM", "MI300X", ...
  int sm;                    // compute capability x10; 0 for AMD parts
  GpuArch arch;
  int max_peer_links;        // physical NVLink/xGMI links on the part
  int default_peer_links;    // links wired on the usual board (0: PCIe card without bridges)
  double fabric_gbs;         // the datasheet's NVLink/xGMI total over max_peer_links, both directions, GB/s
  const char* fabric_source;
  double hbm_gbs;            // HBM bandwidth, GB/s
  const char* hbm_source;
  int multiprocessors;       // SMs (NVIDIA) or compute units (AMD) on the part
  int memory_gib;            // on-package memory of the largest variant (HBM stacks are sized in GiB)
  const char* source;        // of the link counts, multiprocessors and memory

  bool amd() const { return sm == 0; }  // AMD parts run RCCL; NVIDIA parts NCCL
  // One peer link's rate per direction, GB/s: the datasheet total over the links, halved.
  double peer_link_gbs() const { return fabric_gbs / max_peer_links / 2; }
  // Memory of one GPU, in bytes: the largest variant's, so that a size above it fits on no variant.
  std::uint64_t memory_bytes() const { return static_cast<std::uint64_t>(memory_gib) << 30; }
};

// nullptr when unknown.
const GpuModel* find_gpu_model(std::string_view name);
// The SXM/OAM model of an NVIDIA compute capability (70, 80, 90, 100); nullptr when unsupported.
const GpuModel* gpu_model_for_sm(int sm);
// The AMD model of an RCCL gcn name ("gfx942"); nullptr when unsupported.
const GpuModel* gpu_model_for_gcn(std::string_view gcn);
// The part whose datasheet stands for its architecture in per-architecture model constants: the first
// SXM/OAM model of it in the catalogue (V100 SXM2, A100 SXM, H100 SXM, B200, MI300X).
const GpuModel& architecture_model(GpuArch arch);
// "V100 SXM2, A100 SXM, ..." for error messages.
std::string known_gpu_models();

}  // namespace ccforge::topo
