// ccforge cluster files: N copies of one node topology joined by a rail-optimized or fat-tree fabric.
//   <cluster name="ndv5-x16" nodes="16" node="ndv5.xml" fabric="rail-optimized" nic_speed_gbps="400"
//            switch_latency_us="0.13" switch_ports="64" oversubscription="1"
//            transport="ib" nics_per_node="8" gpus_per_nic="1" gpudirect_rdma="on"/>
// transport, nics_per_node, gpus_per_nic and gpudirect_rdma describe the network NCCL drives
// (cluster_transport.cpp); nic_speed_gbps is then each physical NIC's speed.
#pragma once

#include "graph_data.hpp"
#include "raw_topology.hpp"
#include "xml_source.hpp"

#include "ccforge/topology/link_constants.hpp"

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
  NetTransport transport;
  std::optional<double> gpus_per_nic;  // checked against the node once it is read
  SourceLoc loc;
};

ClusterSpec read_cluster(const XmlSource& src, pugi::xml_node cluster);

// transport=, nics_per_node=, gpus_per_nic=, gpudirect_rdma= of <cluster> (cluster_transport.cpp).
void read_cluster_transport(const XmlSource& src, pugi::xml_node cluster, ClusterSpec& spec);
// The transport joined to a built node: its NICs fill the node file's evenly and GPUs per NIC agree
// (a DiagError at the cluster's line otherwise); node_nics filled in.
NetTransport fit_transport_to_node(const ClusterSpec& spec, int node_nics, int gpus_per_node);

// Appends spec.nodes copies of `node` and the fabric between their NICs; returns the transport with
// the node's NIC count filled in.
NetTransport expand_cluster(const ClusterSpec& spec, const RawTopology& node, const LinkConstants& links, GraphData& graph);

}  // namespace ccforge::topo
