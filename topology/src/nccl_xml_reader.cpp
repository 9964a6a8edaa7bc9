#include "nccl_xml_reader.hpp"

#include <fmt/core.h>

#include <array>
#include <cctype>
#include <map>
#include <string_view>
#include <utility>

namespace ccforge::topo {
namespace {

// A sanity bound on <net latency>, 1 ms: NCCL's IB plugin reports 0 and a switch hop is 0.13 us.
constexpr double kMaxNetLatencyUs = 1000;

// NCCL's accepted link_speed strings (src/graph/xml.cc pciSpeeds, both spellings) -> PCIe generation.
// An empty value is what VM dumps write; NCCL then assumes 60 (x100 Mb/s per lane) = Gen3.
constexpr std::array<std::pair<std::string_view, int>, 13> kPcieSpeeds{{
    {"", 3}, {"2.5 GT/s", 1}, {"5 GT/s", 2}, {"8 GT/s", 3}, {"16 GT/s", 4}, {"32 GT/s", 5}, {"64 GT/s", 6},
    {"2.5 GT/s PCIe", 1}, {"5.0 GT/s PCIe", 2}, {"8.0 GT/s PCIe", 3}, {"16.0 GT/s PCIe", 4},
    {"32.0 GT/s PCIe", 5}, {"64.0 GT/s PCIe", 6},
}};

constexpr std::uint32_t kNvSwitchClass = 0x068000;

class Reader {
 public:
  explicit Reader(const XmlSource& src) : src_(src) {}

  RawTopology read(pugi::xml_node system) {
    RawTopology raw;
    raw.loc = src_.loc(system);
    const std::string version = src_.required(system, "version");
    if (version != "1") {
      src_.fail(system, fmt::format("unsupported <system version=\"{}\">", version),
                "NCCL topology files have version=\"1\", NCCL_TOPO_XML_VERSION");
    }
    for (pugi::xml_node child : system.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::string_view(child.name()) != "cpu") unknown_element(child, "system", "<cpu>");
      raw.cpus.push_back(read_cpu(child));
    }
    if (raw.cpus.empty()) src_.fail(system, "<system> has no <cpu>", "list the CPUs with their PCI trees");
    return raw;
  }

 private:
  [[noreturn]] void unknown_element(pugi::xml_node node, const char* parent, const char* allowed) const {
    src_.fail(node, fmt::format("unexpected element <{}> inside <{}>", node.name(), parent),
              fmt::format("ccforge reads {} there", allowed));
  }

  CpuFamily cpu_family(pugi::xml_node cpu) const {
    const std::string arch = cpu.attribute("arch") ? cpu.attribute("arch").value() : "x86_64";
    if (arch == "arm64") return CpuFamily::Arm;
    if (arch == "ppc64") return CpuFamily::Power;
    if (arch != "x86_64") src_.fail(cpu, fmt::format("unknown cpu arch=\"{}\"", arch), "use x86_64, arm64 or ppc64");
    const std::string vendor = src_.required(cpu, "vendor");
    if (vendor == "AuthenticAMD") return CpuFamily::Amd;
    if (vendor == "CentaurHauls" || vendor == "  Shanghai  ") return CpuFamily::Zhaoxin;
    if (vendor != "GenuineIntel") {
      src_.fail(cpu, fmt::format("unknown cpu vendor=\"{}\"", vendor), "use GenuineIntel, AuthenticAMD or CentaurHauls");
    }
    // NCCL src/graph/topo.cc: family 6 model >= 0xCF Emerald Rapids, >= 0x8F Sapphire Rapids, >= 0x55 Skylake.
    const int family = src_.integer(cpu, "familyid", 6);
    const int model = src_.integer(cpu, "modelid", 0);
    if (family != 6) return CpuFamily::IntelBdw;
    if (model >= 0xCF) return CpuFamily::IntelErp;
    if (model >= 0x8F) return CpuFamily::IntelSrp;
    if (model >= 0x55) return CpuFamily::IntelSkl;
    return CpuFamily::IntelBdw;
  }

  RawCpu read_cpu(pugi::xml_node node) {
    RawCpu cpu;
    cpu.loc = src_.loc(node);
    cpu.numa = src_.integer(node, "numaid");
    cpu.family = cpu_family(node);
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view name = child.name();
      if (name == "pci") {
        cpu.pcis.push_back(read_pci(child));
      } else if (name == "nic") {
        cpu.nics.push_back(read_nic(child));
      } else {
        unknown_element(child, "cpu", "<pci> and <nic>");
      }
    }
    return cpu;
  }

  PciRole pci_role(pugi::xml_node node, std::uint32_t cls) const {
    if ((cls >> 8) == 0x0604 || cls == 0x080100) return PciRole::Bridge;  // 0x080100: CX8 data direct (NCCL 2.28)
    if (cls == kNvSwitchClass) return PciRole::NvSwitch;
    if ((cls >> 16) == 0x03) return PciRole::Gpu;
    if ((cls >> 16) == 0x02) return PciRole::Nic;
    src_.fail(node, fmt::format("unknown PCI class 0x{:06x}", cls),
              "ccforge reads bridges 0x0604xx, NVSwitch 0x068000, GPUs 0x03xxxx and NICs 0x02xxxx; remove other devices");
  }

  int pcie_gen(pugi::xml_node node) const {
    const std::string speed = node.attribute("link_speed").value();
    for (const auto& [text, gen] : kPcieSpeeds) {
      if (speed == text) return gen;
    }
    src_.fail(node, fmt::format("unknown link_speed=\"{}\"", speed),
              "use one of NCCL's values: \"2.5 GT/s\" ... \"64 GT/s\" or \"16.0 GT/s PCIe\" ...");
  }

  void check_busid(pugi::xml_node node, const std::string& busid) {
    // dddd:bb:dd.f, all hex.
    const bool shaped = busid.size() == 12 && busid[4] == ':' && busid[7] == ':' && busid[10] == '.';
    bool hex = shaped;
    for (std::size_t i = 0; hex && i < busid.size(); ++i) {
      if (i != 4 && i != 7 && i != 10) hex = std::isxdigit(static_cast<unsigned char>(busid[i])) != 0;
    }
    if (!hex) src_.fail(node, fmt::format("malformed busid=\"{}\"", busid), "write it as dddd:bb:dd.f in hex");
    const auto [it, inserted] = seen_busids_.emplace(busid, src_.loc(node).line);
    if (!inserted) {
      src_.fail(node, fmt::format("duplicate busid {} (first at line {})", busid, it->second),
                "every PCI device needs its own bus id");
    }
  }

  RawPci read_pci(pugi::xml_node node) {
    RawPci pci;
    pci.loc = src_.loc(node);
    pci.busid = src_.required(node, "busid");
    check_busid(node, pci.busid);
    pci.pci_class = src_.hex(node, "class");
    pci.role = pci_role(node, pci.pci_class);
    pci.pcie_gen = pcie_gen(node);
    pci.link_width = src_.integer(node, "link_width", 16);
    if (pci.link_width == 0) pci.link_width = 16;  // NCCL: width 0 means x16
    if (pci.link_width < 0 || pci.link_width > 32) {
      src_.fail(node, fmt::format("impossible link_width=\"{}\"", pci.link_width), "PCIe widths are 1 to 32 lanes");
    }
    pci.vendor = node.attribute("vendor").value();
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      read_pci_child(pci, child);
    }
    return pci;
  }

  void read_pci_child(RawPci& pci, pugi::xml_node child) {
    const std::string_view name = child.name();
    if (name == "pci" && pci.role == PciRole::Bridge) {
      pci.children.push_back(read_pci(child));
    } else if (name == "gpu" && pci.role == PciRole::Gpu && !pci.gpu) {
      pci.gpu = read_gpu(child, pci.vendor);
    } else if (name == "nic" && pci.role == PciRole::Nic && !pci.nic) {
      pci.nic = read_nic(child);
    } else {
      src_.fail(child, fmt::format("unexpected <{}> inside <pci busid=\"{}\" class=\"0x{:06x}\">", name, pci.busid, pci.pci_class),
                "bridges (0x0604xx) hold <pci>, GPUs (0x03xxxx) one <gpu>, NICs (0x02xxxx) one <nic>");
    }
  }

  RawGpu read_gpu(pugi::xml_node node, const std::string& pci_vendor) {
    RawGpu gpu;
    gpu.loc = src_.loc(node);
    gpu.rank = src_.integer(node, "rank");
    gpu.amd = node.attribute("gcn") || pci_vendor == "0x1002";
    if (gpu.amd) {
      gpu.model = node.attribute("gcn").value();  // resolved to a model by complete()
    } else {
      gpu.sm = src_.integer(node, "sm");
    }
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view name = child.name();
      if (name != "nvlink" && name != "xgmi") unknown_element(child, "gpu", "<nvlink> and <xgmi>");
      RawPeerLink link;
      link.xgmi = name == "xgmi";
      link.loc = src_.loc(child);
      link.target = src_.required(child, "target");
      link.count = src_.integer(child, "count");
      link.target_class = src_.hex(child, "tclass");
      if (link.count < 1) {
        src_.fail(child, fmt::format("impossible <{}> count=\"{}\"", name, link.count), "count is the number of links, at least 1");
      }
      gpu.peer_links.push_back(std::move(link));
    }
    return gpu;
  }

  RawNic read_nic(pugi::xml_node node) {
    RawNic nic;
    nic.loc = src_.loc(node);
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::string_view(child.name()) != "net") unknown_element(child, "nic", "<net>");
      RawNet net;
      net.loc = src_.loc(child);
      net.name = src_.required(child, "name");
      net.dev = src_.integer(child, "dev");
      net.speed_mbps = src_.number(child, "speed");
      if (net.speed_mbps <= 0) {
        src_.fail(child, fmt::format("impossible <net> speed=\"{}\"", net.speed_mbps), "give the port speed in Mb/s, e.g. 400000 for NDR");
      }
      if (net.speed_mbps > kMaxNicGbps * 1000)
        src_.fail(child, fmt::format("speed=\"{}\" is out of range", child.attribute("speed").value()),
                  fmt::format("allowed: > 0 and <= {:.0f} Mb/s, i.e. {:g} Gb/s", kMaxNicGbps * 1000, kMaxNicGbps));
      // NCCL writes the port's latency in us (the dumps in data/topologies say 0); ccforge models the hop
      // with link.ib.latency, but a value no port has still marks a corrupted dump.
      if (child.attribute("latency")) src_.number_in(child, "latency", {0, kMaxNetLatencyUs});
      nic.nets.push_back(std::move(net));
    }
    return nic;
  }

  const XmlSource& src_;
  std::map<std::string, int> seen_busids_;
};

}  // namespace

RawTopology read_nccl_system(const XmlSource& src, pugi::xml_node system) { return Reader(src).read(system); }

}  // namespace ccforge::topo
