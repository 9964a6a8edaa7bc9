// GPU models ccforge knows: compute capability, architecture and how many peer links (NVLink or xGMI)
// the part has. Used to complete Azure's partial files and to reject impossible link counts.
#pragma once

#include "ccforge/topology/topology.hpp"

#include <string>
#include <string_view>

namespace ccforge::topo {

struct GpuModel {
  const char* name;
  int sm;                   // compute capability x10; 0 for AMD parts
  GpuArch arch;
  int max_peer_links;       // physical NVLink/xGMI links on the part
  int default_peer_links;   // links wired on the usual board (0: PCIe card without bridges)
  int multiprocessors;      // SMs (NVIDIA) or compute units (AMD) on the part
  int memory_gib;           // on-package memory of the largest variant (HBM stacks are sized in GiB)
  const char* source;
};

// nullptr when unknown.
const GpuModel* find_gpu_model(std::string_view name);
// The SXM/OAM model of an NVIDIA compute capability (70, 80, 90, 100); nullptr when unsupported.
const GpuModel* gpu_model_for_sm(int sm);
// The AMD model of an RCCL gcn name ("gfx942"); nullptr when unsupported.
const GpuModel* gpu_model_for_gcn(std::string_view gcn);

}  // namespace ccforge::topo
