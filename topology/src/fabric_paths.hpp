// Paths between NICs across a leaf-spine network, chosen as InfiniBand's fat-tree routing does, without a
// graph search: a 16,384-GPU cluster's Dijkstra settles ~70,000 vertices per cross-pod route, and every spine
// ties, so it sent all traffic between two leaves through the same spine.
#pragma once

#include "graph_data.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ccforge::topo {

class FabricPaths {
 public:
  explicit FabricPaths(const GraphData& graph);

  // Links from NIC `from` to NIC `to`: up to `from`'s leaf and down to `to`, through one spine when the
  // leaves differ (the widest joining spines, one of them by the destination). Nothing when either NIC hangs off something else than one switch, or no live spine joins
  // the two leaves (the caller then searches the graph).
  std::optional<std::vector<LinkId>> between(VertexId from, VertexId to) const;

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  struct LeafPort {
    std::uint32_t leaf = kNone;   // switch vertex the NIC is cabled to
    std::uint32_t up = kNone;     // link NIC -> leaf
    std::uint32_t down = kNone;   // link leaf -> NIC
    std::uint32_t index = 0;      // position among the leaf's NIC ports, in cabling order
  };
  struct SpineLinks {
    std::uint32_t spine = kNone;
    std::uint32_t up = kNone;    // link leaf -> spine
    std::uint32_t down = kNone;  // link spine -> leaf
  };

  const GraphData& data_;
  std::vector<LeafPort> ports_;                // per vertex; filled for NICs cabled to exactly one switch
  std::vector<std::vector<SpineLinks>> spines_;  // per vertex; for leaves, their spines sorted by vertex
};

}  // namespace ccforge::topo
