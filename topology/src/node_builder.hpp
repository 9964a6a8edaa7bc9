// Pass 3: one completed RawTopology -> vertices and links of one node, appended to a GraphData.
#pragma once

#include "graph_data.hpp"
#include "raw_topology.hpp"

#include "ccforge/topology/link_constants.hpp"

#include <string>
#include <vector>

namespace ccforge::topo {

struct NodeLayout {
  std::vector<VertexId> nics;  // by NCCL net dev index: NIC i of every node is on rail i
  std::vector<Bandwidth> nic_speeds;
};

// Appends node `node` (GPU ranks node * GPUs per node + local rank) with vertex names prefixed by `prefix`.
NodeLayout build_node(const RawTopology& raw, const LinkConstants& links, int node, const std::string& prefix, GraphData& graph);

}  // namespace ccforge::topo
