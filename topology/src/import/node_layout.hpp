// What the matrix printers (`nvidia-smi topo -m`, `rocm-smi --showtopo`) tell about a node, before it
// is written as an NCCL <system>: GPUs and NICs, the NUMA node of each, which share a PCIe switch, and
// the GPUs' NVLink/xGMI links.
#pragma once

#include "ccforge/topology/import.hpp"

#include "ccforge/topology/gpu_models.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ccforge::topo {

struct LayoutGpu {
  int numa = 0;
  int pcie_switch = -1;  // the PCIe switch it shares with others; -1: directly under its CPU
  std::string busid;     // empty: made up when written
  std::vector<std::pair<int, int>> peer_links;  // (peer GPU index, links) for direct NVLink/xGMI
  int nvswitch_links = 0;
};

struct LayoutNic {
  std::string name;
  int numa = 0;
  int pcie_switch = -1;
  double gbps = 0;
};

struct ImportedLayout {
  const GpuModel* model = nullptr;
  std::vector<LayoutGpu> gpus;
  std::vector<LayoutNic> nics;
};

// The ccforge <node> file of `layout`, with the assumptions the writing adds (PCIe links, CPUs, bus ids)
// appended to `notes`.
std::string layout_node_file(const std::string& name, const ImportedLayout& layout, std::vector<ImportNote>& notes);

// "0-3 on NUMA 0, 4-7 on NUMA 1": GPU indices grouped by a value, for one-line notes.
std::string group_by_value(const std::vector<int>& values, const std::string& what);

}  // namespace ccforge::topo
