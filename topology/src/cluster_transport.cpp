// A cluster file's network transport: transport="ib|roce|efa|tcpxo|tcpx|socket" (default ib),
// nics_per_node, gpus_per_nic and gpudirect_rdma="on|off", read and checked against the node they join.
#include "cluster_file.hpp"

#include <fmt/core.h>

#include <cmath>

namespace ccforge::topo {
namespace {

// 64 NICs per node: twice the 32 EFA interfaces of an AWS p5.48xlarge, the most any shipping node has
// (AWS EC2 P5 instance page: 3,200 Gbps as 32 x 100 Gbps EFA).
constexpr int kMaxNicsPerNode = 64;

}  // namespace

const char* to_string(TransportKind kind) {
  switch (kind) {
    case TransportKind::Ib: return "ib";
    case TransportKind::Roce: return "roce";
    case TransportKind::Efa: return "efa";
    case TransportKind::Tcpxo: return "tcpxo";
    case TransportKind::Tcpx: return "tcpx";
    case TransportKind::Socket: return "socket";
  }
  return "?";
}

std::optional<TransportKind> transport_from_name(std::string_view name) {
  for (TransportKind k : {TransportKind::Ib, TransportKind::Roce, TransportKind::Efa, TransportKind::Tcpxo, TransportKind::Tcpx,
                          TransportKind::Socket}) {
    if (name == to_string(k)) return k;
  }
  return std::nullopt;
}

void read_cluster_transport(const XmlSource& src, pugi::xml_node cluster, ClusterSpec& spec) {
  NetTransport& t = spec.transport;
  if (const pugi::xml_attribute a = cluster.attribute("transport")) {
    const std::optional<TransportKind> kind = transport_from_name(a.value());
    if (!kind) src.fail(cluster, fmt::format("unknown transport=\"{}\"", a.value()), fmt::format("use {}", kTransportNames));
    t.kind = *kind;
  }
  if (cluster.attribute("nics_per_node")) {
    t.nics_per_node = src.integer(cluster, "nics_per_node");
    if (t.nics_per_node < 1 || t.nics_per_node > kMaxNicsPerNode) {
      src.fail(cluster, fmt::format("nics_per_node=\"{}\" is out of range", t.nics_per_node), fmt::format("give 1 to {} NICs", kMaxNicsPerNode));
    }
    if (!spec.nic_speed_gbps) src.fail(cluster, "nics_per_node without nic_speed_gbps", "give each physical NIC's speed, e.g. nic_speed_gbps=\"100\"");
  }
  if (cluster.attribute("gpus_per_nic")) spec.gpus_per_nic = src.number_in(cluster, "gpus_per_nic", {0, 64, true});
  if (const pugi::xml_attribute a = cluster.attribute("gpudirect_rdma")) {
    const std::string_view v = a.value();
    if (v != "on" && v != "off") src.fail(cluster, fmt::format("gpudirect_rdma=\"{}\" is neither on nor off", v), "write gpudirect_rdma=\"on\" or \"off\"");
    t.gpudirect_rdma = v == "on";
  }
}

NetTransport fit_transport_to_node(const ClusterSpec& spec, int node_nics, int gpus_per_node) {
  NetTransport t = spec.transport;
  t.node_nics = node_nics;
  const int nics = t.nics_per_node > 0 ? t.nics_per_node : node_nics;
  if (t.nics_per_node > 0 && (node_nics == 0 || t.nics_per_node % node_nics != 0)) {
    throw DiagError(Diag{spec.loc, fmt::format("nics_per_node=\"{}\" does not divide among the node's {} NICs", t.nics_per_node, node_nics),
                         "give a multiple of the node file's NIC count: each of its NICs stands for the same number"});
  }
  if (spec.gpus_per_nic && nics > 0 && std::abs(*spec.gpus_per_nic * nics - gpus_per_node) > 1e-6) {
    throw DiagError(Diag{spec.loc, fmt::format("gpus_per_nic=\"{:g}\" disagrees with {} GPUs over {} NICs", *spec.gpus_per_nic, gpus_per_node, nics),
                         fmt::format("give gpus_per_nic=\"{:g}\" or drop it", static_cast<double>(gpus_per_node) / nics)});
  }
  return t;
}

}  // namespace ccforge::topo
