// `ccforge topo import`: a ccforge <node> file (and, for several nodes, a <cluster> file) from what a
// machine already reports about itself: NCCL's topology dump (NCCL_TOPO_DUMP_FILE), `nvidia-smi topo -m`
// (with `nvidia-smi -q` or a GPU model, and optionally `ibv_devinfo -v`/`ibstat` for NIC rates) or
// `rocm-smi --showtopo`. Unreadable input is a DiagError naming file and line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::topo {

// What the user gave. The input's kind is recognised from its text (an XML <system>, the header row of
// `nvidia-smi topo -m`, rocm-smi's banner).
struct ImportInputs {
  std::filesystem::path input;
  std::optional<std::filesystem::path> gpu_query;  // `nvidia-smi -q` text
  std::optional<std::filesystem::path> nic_query;  // `ibv_devinfo -v` or `ibstat` text
  std::string gpu_model;                           // --gpu-model; "" when not given
  std::optional<double> nic_gbps;                  // --nic-gbps: every NIC's port rate
  std::optional<std::string> fabric;               // --fabric, --nvlinks-per-gpu: for partial NCCL files only
  std::optional<int> nvlinks_per_gpu;
  std::string name;                                // of the node; empty: the input's file stem
};

// One line of what the import took from the input ("inferred") or supplied without evidence ("assumed").
struct ImportNote {
  bool assumed = false;
  std::string text;
  std::string str() const { return (assumed ? "assumed: " : "inferred: ") + text; }
};

struct ImportedNode {
  std::string name;
  std::string node_xml;  // a ccforge <node> file: <machine> and an NCCL <system>
  double nic_gbps = 0;   // the fastest NIC port, 0 without NICs (the cluster's port speed)
  std::vector<ImportNote> notes;
};

ImportedNode import_node(const ImportInputs& inputs);

// The transports a cluster's nodes talk over (the cluster file's transport="...").
inline const std::vector<std::string>& cluster_transports() {
  static const std::vector<std::string> names{"ib", "roce", "efa", "tcpxo", "tcpx", "socket"};
  return names;
}

// N copies of an imported node on one fabric.
struct ClusterPlan {
  std::string name;
  std::string node_file;  // relative to the cluster file
  int nodes = 2;
  std::string transport = "ib";
  double nic_speed_gbps = 0;
};

// The <cluster> file text; the one place that spells the fabric's attributes.
std::string cluster_file_text(const ClusterPlan& plan);

// Where each GPU of node 0 sends into the network, by structure rather than by name, so that two
// machines wired alike compare equal whatever their bus ids and NIC names.
struct NicPlacement {
  int rank = 0;
  std::string nic;                 // the NIC's name, "" without one (shown, not compared)
  std::vector<int> numa_peers;     // ranks on this GPU's NUMA node, itself included
  std::vector<int> nic_sharers;    // ranks that use the same NIC, itself included
  std::string locality;            // "switch": under a common PCIe switch; "cpu": through this GPU's CPU;
                                   // "remote": through another CPU; "none": no NIC
  bool operator==(const NicPlacement& o) const {
    return numa_peers == o.numa_peers && nic_sharers == o.nic_sharers && locality == o.locality;
  }
};
std::vector<NicPlacement> nic_placement(const Topology& topology);

}  // namespace ccforge::topo
