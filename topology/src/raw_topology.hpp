// RawTopology: the NCCL topology XML as typed records, before any completion or graph building.
// Every record keeps the SourceLoc of its element so later passes can name the offending line.
#pragma once

#include "ccforge/topology/topology.hpp"

#include "ccforge/common/diag.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccforge::topo {

// A peer link of a GPU: <nvlink> (NVIDIA) or <xgmi> (RCCL's dump of AMD Infinity Fabric).
struct RawPeerLink {
  bool xgmi = false;
  std::string target;          // bus id of the peer
  int count = 0;               // number of physical links
  std::uint32_t target_class = 0;
  SourceLoc loc;
};

struct RawGpu {
  int rank = 0;
  int sm = 0;                  // compute capability x10; 0 for AMD GPUs
  bool amd = false;
  std::string model;           // from a machine description or derived from sm
  std::vector<RawPeerLink> peer_links;
  SourceLoc loc;
};

struct RawNet {
  std::string name;
  int dev = 0;
  double speed_mbps = 0;
  SourceLoc loc;
};

struct RawNic {
  std::vector<RawNet> nets;
  SourceLoc loc;
};

enum class PciRole { Bridge, NvSwitch, Gpu, Nic };

struct RawPci {
  std::string busid;
  std::uint32_t pci_class = 0;
  PciRole role = PciRole::Bridge;
  int pcie_gen = 3;       // from link_speed
  int link_width = 16;    // 0 in the file means x16, as in NCCL
  std::string vendor;
  std::optional<RawGpu> gpu;
  std::optional<RawNic> nic;
  std::vector<RawPci> children;
  SourceLoc loc;
};

struct RawCpu {
  int numa = 0;
  CpuFamily family = CpuFamily::IntelSkl;
  std::vector<RawPci> pcis;
  std::vector<RawNic> nics;  // NICs directly under the CPU (no PCI placement known)
  SourceLoc loc;
};

struct RawTopology {
  std::string name;
  std::vector<RawCpu> cpus;
  std::optional<MachineDescription> machine;  // from a ccforge <node> wrapper, if any
  SourceLoc machine_loc;                      // of its <machine> element
  SourceLoc loc;                              // of <system>
};

}  // namespace ccforge::topo
