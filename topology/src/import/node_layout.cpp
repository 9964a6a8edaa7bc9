// Writes a ImportedLayout as the NCCL topology XML NCCL itself would dump for such a node (NCCL
// src/graph/xml.cc: <cpu>, <pci> with class and link speed, <gpu>/<nvlink>, RCCL's <xgmi>, <nic>/<net>).
#include "node_layout.hpp"

#include "../node_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ccforge::topo {
namespace {

// The host PCIe link of each part, from its datasheet; a matrix printer shows no link speeds.
struct HostLink {
  const char* model;
  int gen;
  const char* source;
};
constexpr HostLink kHostLinks[] = {
    {"V100 SXM2", 3, "NVIDIA Tesla V100 datasheet: PCIe Gen3"},
    {"A100 SXM", 4, "NVIDIA A100 datasheet: PCIe Gen4"},
    {"A100 PCIe", 4, "NVIDIA A100 datasheet: PCIe Gen4"},
    {"H100 SXM", 5, "NVIDIA H100 datasheet: PCIe Gen5"},
    {"H100 PCIe", 5, "NVIDIA H100 datasheet: PCIe Gen5"},
    {"MI300X", 5, "AMD Instinct MI300X datasheet: PCIe Gen 5 x16"},
};
// NCCL's link_speed strings (src/graph/xml.cc) by generation.
constexpr const char* kLinkSpeeds[] = {"", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe"};
constexpr int kAssumedGen = 4;
// A made-up NVSwitch bus id, as NCCL dumps for VMs that hide the switches.
constexpr const char* kNvSwitchTarget = "ffffffff:ff:ff.0";

// Hands out bus ids 0000:XX:00.0 that no GPU of the layout holds.
class BusIds {
 public:
  explicit BusIds(const ImportedLayout& layout) {
    for (const LayoutGpu& g : layout.gpus) taken_.insert(g.busid);
  }
  std::string next() {
    for (;;) {
      if (bus_ > 0xff) throw DiagError(Diag{{}, "more than 255 PCI devices to number", "import a node of at most 255 GPUs and NICs"});
      std::string id = fmt::format("0000:{:02x}:00.0", bus_++);
      if (taken_.insert(id).second) return id;
    }
  }

 private:
  std::set<std::string> taken_;
  int bus_ = 1;
};

class SystemWriter {
 public:
  SystemWriter(const ImportedLayout& layout, int gen) : layout_(layout), link_speed_(kLinkSpeeds[gen]), ids_(layout) {
    for (const LayoutGpu& g : layout.gpus) gpu_ids_.push_back(g.busid.empty() ? ids_.next() : g.busid);
  }

  void write(pugi::xml_node system) {
    system.append_attribute("version") = "1";
    std::set<int> numas;
    for (const LayoutGpu& g : layout_.gpus) numas.insert(g.numa);
    for (const LayoutNic& n : layout_.nics) numas.insert(n.numa);
    for (int numa : numas) write_cpu(system.append_child("cpu"), numa);
  }

 private:
  void write_cpu(pugi::xml_node cpu, int numa) {
    cpu.append_attribute("numaid") = numa;
    cpu.append_attribute("arch") = "x86_64";
    cpu.append_attribute("vendor") = "GenuineIntel";
    cpu.append_attribute("familyid") = 6;
    cpu.append_attribute("modelid") = 85;  // 0x55: NCCL's Skylake class (src/graph/topo.cc)
    std::set<int> switches;
    for (const LayoutGpu& g : layout_.gpus) {
      if (g.numa == numa && g.pcie_switch >= 0) switches.insert(g.pcie_switch);
    }
    for (const LayoutNic& n : layout_.nics) {
      if (n.numa == numa && n.pcie_switch >= 0) switches.insert(n.pcie_switch);
    }
    for (int s : switches) write_devices(pci(cpu, ids_.next(), "0x060400"), numa, s);
    write_devices(cpu, numa, -1);
  }

  // GPUs first, then NICs: ccforge and NCCL pair the k-th GPU under a switch with its k-th NIC.
  void write_devices(pugi::xml_node parent, int numa, int pcie_switch) {
    for (std::size_t i = 0; i < layout_.gpus.size(); ++i) {
      const LayoutGpu& g = layout_.gpus[i];
      if (g.numa == numa && g.pcie_switch == pcie_switch) write_gpu(parent, i);
    }
    for (std::size_t i = 0; i < layout_.nics.size(); ++i) {
      const LayoutNic& n = layout_.nics[i];
      if (n.numa == numa && n.pcie_switch == pcie_switch) write_nic(parent, i);
    }
  }

  pugi::xml_node pci(pugi::xml_node parent, const std::string& busid, const char* cls) {
    pugi::xml_node p = parent.append_child("pci");
    p.append_attribute("busid") = busid.c_str();
    p.append_attribute("class") = cls;
    p.append_attribute("link_speed") = link_speed_;
    p.append_attribute("link_width") = 16;
    return p;
  }

  void write_gpu(pugi::xml_node parent, std::size_t i) {
    const GpuModel& model = *layout_.model;
    const bool amd = model.amd();
    pugi::xml_node p = pci(parent, gpu_ids_[i], amd ? "0x038000" : "0x030200");
    if (amd) p.append_attribute("vendor") = "0x1002";
    pugi::xml_node gpu = p.append_child("gpu");
    gpu.append_attribute("dev") = static_cast<int>(i);
    if (amd) {
      gpu.append_attribute("gcn") = "gfx942";  // the only AMD ISA ccforge models (gpu_models.cpp)
    } else {
      gpu.append_attribute("sm") = model.sm;
    }
    gpu.append_attribute("rank") = static_cast<int>(i);
    gpu.append_attribute("gdr") = 1;
    const LayoutGpu& g = layout_.gpus[i];
    for (const auto& [peer, count] : g.peer_links) {
      pugi::xml_node link = gpu.append_child(amd ? "xgmi" : "nvlink");
      link.append_attribute("target") = gpu_ids_[static_cast<std::size_t>(peer)].c_str();
      link.append_attribute("count") = count;
      link.append_attribute("tclass") = amd ? "0x038000" : "0x030200";
    }
    if (g.nvswitch_links > 0) {
      pugi::xml_node link = gpu.append_child("nvlink");
      link.append_attribute("target") = kNvSwitchTarget;
      link.append_attribute("count") = g.nvswitch_links;
      link.append_attribute("tclass") = "0x068000";
    }
  }

  void write_nic(pugi::xml_node parent, std::size_t i) {
    const LayoutNic& n = layout_.nics[i];
    pugi::xml_node net = pci(parent, ids_.next(), "0x020700").append_child("nic").append_child("net");
    net.append_attribute("name") = n.name.c_str();
    net.append_attribute("dev") = static_cast<int>(i);
    net.append_attribute("speed") = fmt::format("{:g}", n.gbps * 1000).c_str();
    net.append_attribute("port") = 1;
    net.append_attribute("gdr") = 1;
  }

  const ImportedLayout& layout_;
  const char* link_speed_;
  BusIds ids_;
  std::vector<std::string> gpu_ids_;
};

}  // namespace

std::string group_by_value(const std::vector<int>& values, const std::string& what) {
  std::map<int, std::vector<int>> by_value;
  for (std::size_t i = 0; i < values.size(); ++i) by_value[values[i]].push_back(static_cast<int>(i));
  std::string out;
  for (const auto& [value, indices] : by_value) {
    if (!out.empty()) out += ", ";
    std::string list;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const bool run_start = k == 0 || indices[k - 1] != indices[k] - 1;
      const bool run_end = k + 1 == indices.size() || indices[k + 1] != indices[k] + 1;
      // Appends, not chained operator+: GCC 12 warns falsely (-Wrestrict) on those.
      if (run_start) list.append(list.empty() ? "" : ",").append(std::to_string(indices[k]));
      else if (run_end) list.append("-").append(std::to_string(indices[k]));
    }
    out += fmt::format("{} on {} {}", list, what, value);
  }
  return out;
}

std::string layout_node_file(const std::string& name, const ImportedLayout& layout, std::vector<ImportNote>& notes) {
  const GpuModel& model = *layout.model;
  const auto host = std::find_if(std::begin(kHostLinks), std::end(kHostLinks),
                                 [&](const HostLink& h) { return std::string_view(h.model) == model.name; });
  const int gen = host != std::end(kHostLinks) ? host->gen : kAssumedGen;
  notes.push_back({true, host != std::end(kHostLinks)
                             ? fmt::format("PCIe Gen{} x16 links for GPUs, NICs and switches ({}); the input shows no link speeds", gen, host->source)
                             : fmt::format("PCIe Gen{} x16 links: no host-link figure for {} here and the input shows none", gen, model.name)});
  notes.push_back({true, "x86_64 CPUs of Intel's Skylake class between NUMA nodes (NCCL's SKL_QPI_BW, 10 GB/s); "
                         "the input names no CPU, and only paths through two sockets use this link"});
  const bool made_up = std::any_of(layout.gpus.begin(), layout.gpus.end(), [](const LayoutGpu& g) { return g.busid.empty(); });
  notes.push_back({true, made_up ? "PCI bus ids are made up (the input prints none); names in `topo show` differ from the machine's"
                                 : "PCI bus ids of NICs and switches are made up (the input prints only the GPUs')"});
  pugi::xml_document doc;
  SystemWriter(layout, gen).write(doc.append_child("system"));
  MachineDescription machine;
  machine.gpu_model = model.name;
  machine.fabric = std::any_of(layout.gpus.begin(), layout.gpus.end(), [](const LayoutGpu& g) { return g.nvswitch_links > 0; })
                       ? "nvswitch"
                       : "none";
  return node_file_text(name, machine, pugi::xml_node(), doc.document_element());
}

}  // namespace ccforge::topo
