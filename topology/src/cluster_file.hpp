// ccforge cluster files: N copies of one node topology joined by a rail-optimized or fat-tree fabric.
//   <cluster name="ndv5-x16" nodes="16" node="ndv5.xml" fabric="rail-optimized" nic_speed_gbps="400"
//            switch_latency_us="0.13" switch_ports="64" oversubscription="1"/>
#pragma once

#include "graph_data.hpp"
#include "raw_topology.hpp"
#include "xml_source.hpp"

#include "ccforge/common/params.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace ccforge::topo {

enum class Fabric { RailOptimized, FatTree };

struct ClusterSpec {
  std::string name;
  int nodes = 0;
  std::filesystem::path node_file;  // resolved against the cluster file's folder
  Fabric fabric = Fabric::RailOptimized;
  std::optional<double> nic_speed_gbps;     // switch port speed; default: the node's NIC speed
  std::optional<double> switch_latency_us;  // default: link.netswitch.latency
  int switch_ports = 64;
  int oversubscription = 1;  // leaf downlinks per uplink
  SourceLoc loc;
};

ClusterSpec read_cluster(const XmlSource& src, pugi::xml_node cluster);

// Appends spec.nodes copies of `node` and the fabric between their NICs.
void expand_cluster(const ClusterSpec& spec, const RawTopology& node, const ParamTable& params, GraphData& graph);

}  // namespace ccforge::topo
