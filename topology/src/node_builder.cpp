#include "node_builder.hpp"

#include "complete.hpp"
#include "ccforge/topology/gpu_models.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>

namespace ccforge::topo {
namespace {

int nvlink_generation(int sm) { return sm >= 100 ? 5 : sm >= 90 ? 4 : sm >= 80 ? 3 : 2; }

class NodeBuilder {
 public:
  NodeBuilder(const LinkConstants& links, int node, std::string prefix, GraphData& graph)
      : links_(links), node_(node), prefix_(std::move(prefix)), g_(graph) {}

  NodeLayout build(const RawTopology& raw) {
    add_cpus(raw);
    for (const RawCpu& cpu : raw.cpus) {
      for (const RawPci& pci : cpu.pcis) add_pci(pci, cpus_.at(cpu.numa), cpu.numa);
      for (const RawNic& nic : cpu.nics) add_nic(nic, cpus_.at(cpu.numa), cpu.numa, std::nullopt);
    }
    add_peer_links();
    return finish();
  }

 private:
  struct PlacedGpu {
    const RawPci* pci;
    VertexId vertex, parent;
    int numa;
    Bandwidth pcie;
    Bandwidth fabric{};  // NVLink/xGMI out of this GPU, summed
    int fabric_links = 0;  // the links summed
  };
  struct PlacedNic {
    VertexId vertex, parent;
    int numa, dev;
    Bandwidth speed;
  };

  Bandwidth pcie_bw(const RawPci& pci) const { return Bandwidth::GBps(pci.link_width * links_.pcie_lane(pci.pcie_gen)); }
  VertexId add(VertexKind kind, const std::string& name, int numa, Bandwidth nic_speed = {}) {
    return g_.add_vertex(Vertex{kind, prefix_ + name, node_, numa}, nic_speed);
  }

  void add_cpus(const RawTopology& raw) {
    for (const RawCpu& cpu : raw.cpus) {
      if (cpus_.contains(cpu.numa)) {
        throw DiagError(Diag{cpu.loc, fmt::format("duplicate cpu numaid {}", cpu.numa), "give every <cpu> its own numaid"});
      }
      cpus_[cpu.numa] = add(VertexKind::Cpu, fmt::format("cpu{}", cpu.numa), cpu.numa);
    }
    // NCCL links every pair of CPUs of a node (SYS links); the socket interconnect bounds them.
    const CpuFamily family = raw.cpus.front().family;
    const Bandwidth bw = Bandwidth::GBps(links_.cpu(family));
    for (auto a = cpus_.begin(); a != cpus_.end(); ++a) {
      for (auto b = std::next(a); b != cpus_.end(); ++b) {
        g_.add_cable(a->second, b->second, LinkKind::CpuInterconnect, bw, SimTime::from_us(links_.cpu_latency_us), "CPU interconnect");
      }
    }
  }

  void add_pci(const RawPci& pci, VertexId parent, int numa) {
    const Bandwidth bw = pcie_bw(pci);
    const std::string detail = fmt::format("PCIe Gen{} x{}", pci.pcie_gen, pci.link_width);
    if (pci.role == PciRole::Nic) {
      add_nic(*pci.nic, parent, numa, bw);
      return;
    }
    const VertexKind kind = pci.role == PciRole::Gpu ? VertexKind::Gpu
                            : pci.role == PciRole::NvSwitch ? VertexKind::NvSwitch
                                                            : VertexKind::PciSwitch;
    const VertexId v = kind == VertexKind::NvSwitch ? nvswitch() : add(kind, pci.busid, numa);
    g_.add_cable(v, parent, LinkKind::Pcie, bw, SimTime::from_us(links_.pcie_latency_us), detail);
    if (pci.role == PciRole::Gpu) gpus_.push_back(PlacedGpu{&pci, v, parent, numa, bw});
    for (const RawPci& child : pci.children) add_pci(child, v, numa);
  }

  // Each <net> (port) is a NIC vertex; its PCIe link is bounded by the port speed as well.
  void add_nic(const RawNic& nic, VertexId parent, int numa, std::optional<Bandwidth> pcie) {
    for (const RawNet& net : nic.nets) {
      const Bandwidth speed = Bandwidth::Gbps(net.speed_mbps / 1000.0);
      const VertexId v = add(VertexKind::Nic, net.name, numa, speed);
      const Bandwidth bw = pcie ? std::min(*pcie, speed) : speed;
      g_.add_cable(v, parent, LinkKind::Pcie, bw, SimTime::from_us(links_.pcie_latency_us), pcie ? "PCIe to NIC" : "host NIC");
      nics_.push_back(PlacedNic{v, parent, numa, net.dev, speed});
    }
  }

  VertexId nvswitch() {
    if (!nvswitch_) nvswitch_ = add(VertexKind::NvSwitch, "nvswitch", -1);
    return *nvswitch_;
  }

  VertexId gpu_vertex(const std::string& busid) const {
    for (const PlacedGpu& g : gpus_) {
      if (g.pci->busid == busid) return g.vertex;
    }
    throw std::logic_error("complete() let an unknown peer GPU through: " + busid);
  }

  void add_peer_links() {
    for (PlacedGpu& gpu : gpus_) {
      const RawGpu& raw = *gpu.pci->gpu;
      const double link_gbps = links_.peer_link(find_gpu_model(raw.model)->arch);  // NVLink or, for AMD, xGMI
      int switch_links = 0;
      for (const RawPeerLink& link : raw.peer_links) {
        if ((link.target_class >> 16) != 0x03) {
          switch_links += link.count;  // all NVSwitch targets of a node merge into one vertex, as in NCCL
          continue;
        }
        const LinkKind kind = link.xgmi ? LinkKind::Xgmi : LinkKind::NvLink;
        gpu.fabric.bytes_per_s += Bandwidth::GBps(link.count * link_gbps).bytes_per_s;
        gpu.fabric_links += link.count;
        // Each GPU lists its own side of a peer link, so one element is one directed link.
        g_.add_link(gpu.vertex, gpu_vertex(link.target), kind, Bandwidth::GBps(link.count * link_gbps),
                    SimTime::from_us(link.xgmi ? links_.xgmi_latency_us : links_.nvlink_latency_us),
                    fmt::format("{} x{}", link.xgmi ? "xGMI" : fmt::format("NVLink{}", nvlink_generation(raw.sm)), link.count));
      }
      if (switch_links > 0) {
        gpu.fabric.bytes_per_s += Bandwidth::GBps(switch_links * link_gbps).bytes_per_s;
        gpu.fabric_links += switch_links;
        g_.add_cable(gpu.vertex, nvswitch(), LinkKind::NvSwitch, Bandwidth::GBps(switch_links * link_gbps),
                     SimTime::from_us(links_.nvswitch_latency_us), fmt::format("NVLink{} x{}", nvlink_generation(raw.sm), switch_links));
      }
    }
  }

  // NCCL pairs a GPU with a NIC behind the same PCIe switch, else on the same NUMA node. Several GPUs
  // and NICs under one switch (NDv4) pair in file order,
  // round robin when the switch has fewer NICs than GPUs (DGX-1).
  std::optional<std::size_t> nearest_nic(const PlacedGpu& gpu) const {
    std::size_t k = 0;  // how many GPUs under the same switch come before this one in the file
    for (const PlacedGpu& other : gpus_) {
      if (&other == &gpu) break;
      k += other.parent == gpu.parent;
    }
    std::vector<std::size_t> same_switch, same_numa;
    for (std::size_t i = 0; i < nics_.size(); ++i) {
      if (nics_[i].parent == gpu.parent) same_switch.push_back(i);
      if (nics_[i].numa == gpu.numa) same_numa.push_back(i);
    }
    if (!same_switch.empty()) return same_switch[k % same_switch.size()];
    if (!same_numa.empty()) return same_numa.front();
    if (!nics_.empty()) return 0;
    return std::nullopt;
  }

  NodeLayout finish() {
    std::sort(nics_.begin(), nics_.end(), [](const PlacedNic& a, const PlacedNic& b) { return a.dev < b.dev; });
    const int n = static_cast<int>(gpus_.size());
    g_.gpus.resize(static_cast<std::size_t>((node_ + 1) * n));
    for (const PlacedGpu& placed : gpus_) {
      const RawGpu& raw = *placed.pci->gpu;
      const GpuModel& model = *find_gpu_model(raw.model);
      GpuInfo info{placed.vertex,  node_ * n + raw.rank, node_,       raw.rank,    placed.numa, &model,
                   std::nullopt,   placed.fabric,       placed.fabric_links, placed.pcie, Bandwidth{}};
      if (const auto nic = nearest_nic(placed)) {
        info.nearest_nic = nics_[*nic].vertex;
        info.nic_bandwidth = nics_[*nic].speed;
      }
      g_.gpus[static_cast<std::size_t>(info.rank)] = std::move(info);
    }
    NodeLayout layout;
    for (const PlacedNic& nic : nics_) {
      layout.nics.push_back(nic.vertex);
      layout.nic_speeds.push_back(nic.speed);
    }
    return layout;
  }

  const LinkConstants& links_;
  int node_;
  std::string prefix_;
  GraphData& g_;
  std::map<int, VertexId> cpus_;
  std::optional<VertexId> nvswitch_;
  std::vector<PlacedGpu> gpus_;
  std::vector<PlacedNic> nics_;
};

}  // namespace

NodeLayout build_node(const RawTopology& raw, const LinkConstants& links, int node, const std::string& prefix, GraphData& graph) {
  return NodeBuilder(links, node, prefix, graph).build(raw);
}

}  // namespace ccforge::topo
