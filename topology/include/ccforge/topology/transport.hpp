// The network transport NCCL drives between a cluster's nodes, as its cluster file names it: which
// transport (InfiniBand verbs, RoCE, AWS EFA, GCP GPUDirect-TCPXO/TCPX, plain sockets), how many NICs a
// node has, how fast each is, and whether GPUDirect RDMA is used. What each transport costs is the
// simulator's (sim/src/net/transports.cpp); the topology only carries the description.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ccforge::topo {

enum class TransportKind { Ib, Roce, Efa, Tcpxo, Tcpx, Socket };

struct NetTransport {
  TransportKind kind = TransportKind::Ib;
  // Physical NICs per node; 0: one per NIC of the node file. More NICs than the node file's are joined
  // into its NICs, nics_per_device() each (aws-ofi-nccl joins a GPU's EFA NICs as rails of one device).
  int nics_per_node = 0;
  double nic_speed_gbps = 0;  // per physical NIC; 0: the node file's NIC speed
  bool gpudirect_rdma = true;  // the NIC reads and writes GPU memory (else staged through host memory)
  int node_nics = 0;           // NICs of the node file, filled when the cluster is built
  int nics_per_device() const { return nics_per_node > 0 && node_nics > 0 ? nics_per_node / node_nics : 1; }
};

const char* to_string(TransportKind kind);
std::optional<TransportKind> transport_from_name(std::string_view name);
inline constexpr const char* kTransportNames = "ib, roce, efa, tcpxo, tcpx or socket";

}  // namespace ccforge::topo
