// The vertex and link lists being built, before they are frozen into a Topology.
#pragma once

#include "ccforge/topology/topology.hpp"

#include <string>
#include <vector>

namespace ccforge::topo {

struct GraphData {
  std::vector<Vertex> vertices;
  std::vector<Link> links;
  std::vector<GpuInfo> gpus;  // indexed by global rank
  std::vector<Bandwidth> nic_speeds;  // indexed by vertex; 0 for vertices that are not NICs

  VertexId add_vertex(Vertex v, Bandwidth nic_speed = {}) {
    vertices.push_back(std::move(v));
    nic_speeds.push_back(nic_speed);
    return VertexId{static_cast<std::uint32_t>(vertices.size() - 1)};
  }
  void add_link(VertexId src, VertexId dst, LinkKind kind, Bandwidth bw, SimTime latency, const std::string& detail) {
    links.push_back(Link{src, dst, kind, bw, latency, detail});
  }
  // A cable is two directed links of the same speed.
  void add_cable(VertexId a, VertexId b, LinkKind kind, Bandwidth bw, SimTime latency, const std::string& detail) {
    add_link(a, b, kind, bw, latency, detail);
    add_link(b, a, kind, bw, latency, detail);
  }
};

}  // namespace ccforge::topo
