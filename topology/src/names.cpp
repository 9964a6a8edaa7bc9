// Printable names of the topology enums (used in `topo show`, JSON and error messages).
#include "ccforge/topology/topology.hpp"

namespace ccforge::topo {

const char* to_string(VertexKind kind) {
  switch (kind) {
    case VertexKind::Gpu: return "gpu";
    case VertexKind::NvSwitch: return "nvswitch";
    case VertexKind::PciSwitch: return "pci_switch";
    case VertexKind::Cpu: return "cpu";
    case VertexKind::Nic: return "nic";
    case VertexKind::NetSwitch: return "net_switch";
  }
  return "?";
}

const char* to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::NvLink: return "nvlink";
    case LinkKind::NvSwitch: return "nvswitch";
    case LinkKind::Xgmi: return "xgmi";
    case LinkKind::Pcie: return "pcie";
    case LinkKind::CpuInterconnect: return "cpu";
    case LinkKind::Nic: return "nic";
    case LinkKind::Network: return "network";
  }
  return "?";
}

const char* to_string(PathClass cls) {
  switch (cls) {
    case PathClass::Loc: return "LOC";
    case PathClass::Nvl: return "NVL";
    case PathClass::Nvb: return "NVB";
    case PathClass::C2c: return "C2C";
    case PathClass::Pix: return "PIX";
    case PathClass::Pxb: return "PXB";
    case PathClass::P2c: return "P2C";
    case PathClass::Pxn: return "PXN";
    case PathClass::Phb: return "PHB";
    case PathClass::Sys: return "SYS";
    case PathClass::Net: return "NET";
    case PathClass::Dis: return "DIS";
  }
  return "?";
}

const char* to_string(GpuArch arch) {
  switch (arch) {
    case GpuArch::Volta: return "volta";
    case GpuArch::Ampere: return "ampere";
    case GpuArch::Hopper: return "hopper";
    case GpuArch::Blackwell: return "blackwell";
    case GpuArch::Cdna3: return "cdna3";
  }
  return "?";
}

const char* param_key(GpuArch arch) {
  switch (arch) {
    case GpuArch::Volta: return "sm70";
    case GpuArch::Ampere: return "sm80";
    case GpuArch::Hopper: return "sm90";
    case GpuArch::Blackwell: return "sm100";
    case GpuArch::Cdna3: return "cdna3";
  }
  return "?";
}

}  // namespace ccforge::topo
