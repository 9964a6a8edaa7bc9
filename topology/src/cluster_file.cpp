#include "cluster_file.hpp"

#include "node_builder.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace ccforge::topo {
namespace {

// The largest cluster ccforge builds; the issue asks for up to 2048 NDv5 nodes.
constexpr int kMaxNodes = 4096;
// NVIDIA Quantum-2 QM9700 datasheet: 64 ports of 400 Gb/s NDR per switch.
constexpr int kDefaultSwitchPorts = 64;
// A sanity bound, 1 ms: a switch hop takes about 0.13 us (link.netswitch.latency); more is a typo.
constexpr double kMaxSwitchLatencyUs = 1000;

Fabric parse_fabric(const XmlSource& src, pugi::xml_node node) {
  const std::string fabric = src.required(node, "fabric");
  if (fabric == "rail-optimized") return Fabric::RailOptimized;
  if (fabric == "fat-tree") return Fabric::FatTree;
  src.fail(node, fmt::format("unknown fabric=\"{}\"", fabric), "use rail-optimized or fat-tree");
}

}  // namespace

ClusterSpec read_cluster(const XmlSource& src, pugi::xml_node node) {
  src.check_attributes(node, {"name", "nodes", "node", "fabric", "nic_speed_gbps", "switch_latency_us", "switch_ports",
                              "oversubscription", "transport", "nics_per_node", "gpus_per_nic", "gpudirect_rdma"});
  ClusterSpec spec;
  spec.loc = src.loc(node);
  spec.name = node.attribute("name") ? node.attribute("name").value()
                                     : std::filesystem::path(src.file()).stem().string();
  spec.nodes = src.integer(node, "nodes");
  if (spec.nodes < 1 || spec.nodes > kMaxNodes) {
    src.fail(node, fmt::format("nodes=\"{}\" is out of range", spec.nodes), fmt::format("give 1 to {} nodes", kMaxNodes));
  }
  spec.node_file = std::filesystem::path(src.file()).parent_path() / src.required(node, "node");
  // Only a missing file is "not found": a directory or device there is named by the reader (read_file).
  if (std::error_code error; !std::filesystem::exists(spec.node_file, error)) {
    src.fail(node, fmt::format("node file {} not found", spec.node_file.string()), "node=\"...\" is relative to the cluster file");
  }
  spec.fabric = parse_fabric(src, node);
  if (node.attribute("nic_speed_gbps")) spec.nic_speed_gbps = src.number_in(node, "nic_speed_gbps", {0, kMaxNicGbps, true});
  if (node.attribute("switch_latency_us")) spec.switch_latency_us = src.number_in(node, "switch_latency_us", {0, kMaxSwitchLatencyUs});
  spec.switch_ports = src.integer(node, "switch_ports", kDefaultSwitchPorts);
  spec.oversubscription = src.integer(node, "oversubscription", 1);
  if (spec.oversubscription < 1 || spec.switch_ports < spec.oversubscription + 1) {
    src.fail(node, fmt::format("switch_ports={} cannot give oversubscription={}", spec.switch_ports, spec.oversubscription),
             "a leaf needs at least one uplink: switch_ports > oversubscription >= 1");
  }
  read_cluster_transport(src, node, spec);
  return spec;
}

namespace {

class FabricBuilder {
 public:
  FabricBuilder(const ClusterSpec& spec, const LinkConstants& links, GraphData& graph) : spec_(spec), links_(links), g_(graph) {
    // A leaf splits its ports between nodes (down) and spines (up) in the ratio oversubscription : 1.
    down_ = spec.switch_ports * spec.oversubscription / (spec.oversubscription + 1);
    up_ = spec.switch_ports - down_;
    hop_latency_ = SimTime::from_us(spec.switch_latency_us.value_or(links.netswitch_latency_us));
  }

  void connect(const std::vector<NodeLayout>& nodes) {
    const int rails = static_cast<int>(nodes.front().nics.size());
    if (rails == 0) return;  // the reachability check reports the isolated nodes
    const int n = static_cast<int>(nodes.size());
    const int leaves_per_rail = (n + down_ - 1) / down_;
    const int leaves = spec_.fabric == Fabric::RailOptimized ? rails * leaves_per_rail : (n * rails + down_ - 1) / down_;
    for (int l = 0; l < leaves; ++l) leaves_.push_back(add_switch(fmt::format("leaf{}", l)));
    for (int node = 0; node < n; ++node) {
      for (int rail = 0; rail < rails; ++rail) {
        const int leaf = spec_.fabric == Fabric::RailOptimized ? rail * leaves_per_rail + node / down_ : (node * rails + rail) / down_;
        const NodeLayout& layout = nodes[static_cast<std::size_t>(node)];
        const auto r = static_cast<std::size_t>(rail);
        attach_nic(layout.nics[r], layout.nic_speeds[r], leaves_[static_cast<std::size_t>(leaf)]);
      }
    }
    if (leaves > 1) add_spines();
  }

 private:
  VertexId add_switch(const std::string& name) { return g_.add_vertex(Vertex{VertexKind::NetSwitch, name, -1, -1}); }

  // The NIC-leaf cable runs at the slower of the NIC and the switch port. Where the cluster names its
  // physical NICs (nics_per_node), a node NIC stands for nics_per_device() of them at nic_speed_gbps each.
  void attach_nic(VertexId nic, Bandwidth nic_speed, VertexId leaf) {
    const NetTransport& t = spec_.transport;
    Bandwidth bw = spec_.nic_speed_gbps ? std::min(nic_speed, Bandwidth::Gbps(*spec_.nic_speed_gbps)) : nic_speed;
    if (t.nics_per_node > 0 && spec_.nic_speed_gbps) bw = Bandwidth::Gbps(*spec_.nic_speed_gbps * t.nics_per_device());
    g_.add_cable(nic, leaf, LinkKind::Nic, bw, SimTime::from_us(links_.ib_latency_us), fmt::format("{:g}G", bw.bytes_per_s * 8e-9));
    widest_port_ = std::max(widest_port_, bw);
  }

  // Every leaf has one uplink to each spine, so a leaf reaches any other in two switch hops.
  void add_spines() {
    for (int s = 0; s < up_; ++s) {
      const VertexId spine = add_switch(fmt::format("spine{}", s));
      for (VertexId leaf : leaves_) {
        g_.add_cable(leaf, spine, LinkKind::Network, widest_port_, hop_latency_, fmt::format("{:g}G", widest_port_.bytes_per_s * 8e-9));
      }
    }
  }

  const ClusterSpec& spec_;
  const LinkConstants& links_;
  GraphData& g_;
  int down_ = 1, up_ = 1;
  SimTime hop_latency_;
  Bandwidth widest_port_;
  std::vector<VertexId> leaves_;
};

}  // namespace

NetTransport expand_cluster(const ClusterSpec& spec, const RawTopology& node, const LinkConstants& links, GraphData& graph) {
  std::vector<NodeLayout> layouts;
  layouts.reserve(static_cast<std::size_t>(spec.nodes));
  for (int n = 0; n < spec.nodes; ++n) layouts.push_back(build_node(node, links, n, fmt::format("n{}/", n), graph));
  ClusterSpec built = spec;
  built.transport = fit_transport_to_node(spec, static_cast<int>(layouts.front().nics.size()),
                                          static_cast<int>(graph.gpus.size()) / spec.nodes);
  FabricBuilder(built, links, graph).connect(layouts);
  return built.transport;
}

}  // namespace ccforge::topo
