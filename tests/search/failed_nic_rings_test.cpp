// Multi-node rings around a failed NIC (issue 17, what-if): ndv5-x2 with n0/mlx5_0 out of service. NCCL's
// search builds each channel on a NIC that exists, so rings enter the nodes at GPUs 1..7 only and no NIC
// carries two rings while another live one carries none.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

topo::Topology ndv5_x2(const std::vector<std::string>& failed) {
  std::vector<topo::TopologyChange> changes;
  for (const std::string& f : failed) changes.push_back(topo::parse_failure(f));
  return topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x2.xml").with_changes(changes);
}

// NIC vertex name -> how many of `rings` cross between nodes through it.
std::map<std::string, int> rings_per_nic(const topo::Topology& t, const std::vector<std::vector<int>>& rings) {
  std::map<std::string, int> load;
  for (const topo::Vertex& v : t.vertices())
    if (v.kind == topo::VertexKind::Nic && v.node >= 0) load[v.name] = 0;
  for (const auto& ring : rings) {
    std::set<std::string> used;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      for (LinkId l : t.route(ring[i], ring[(i + 1) % ring.size()]).links) {
        for (VertexId end : {t.link(l).src, t.link(l).dst})
          if (t.vertex(end).kind == topo::VertexKind::Nic) used.insert(t.vertex(end).name);
      }
    }
    for (const std::string& nic : used) ++load[nic];
  }
  return load;
}

TEST(SearchRingsFailedNic, HealthyClusterPutsOneRingOnEveryRail) {
  const topo::Topology t = ndv5_x2({});
  const auto rings = find_rings(t, 8);
  ASSERT_EQ(rings.size(), 8u);
  for (const auto& [nic, n] : rings_per_nic(t, rings)) EXPECT_EQ(n, 1) << nic;
}

TEST(SearchRingsFailedNic, RingsCrossOnlyOnLiveNicsOnePerNic) {
  const topo::Topology t = ndv5_x2({"nic:n0/mlx5_0"});
  EXPECT_EQ(sim::rail_entries(t), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  const auto rings = find_rings(t, 8);
  ASSERT_EQ(rings.size(), 7u) << "one ring per rail still in service on every node";
  for (const auto& ring : rings) EXPECT_NE(ring[0] % 8, 0) << "no ring enters a node at the GPU whose NIC failed";
  const auto load = rings_per_nic(t, rings);
  EXPECT_EQ(load.at("n0/mlx5_0"), 0);
  for (const auto& [nic, n] : load) {
    EXPECT_LE(n, 1) << nic << " carries two rings while a live NIC carries none";
    if (nic != "n0/mlx5_0" && nic != "n1/mlx5_0") {
      EXPECT_EQ(n, 1) << nic;
    }
  }
}

// Failures on different rails of different nodes: rings use the rails alive on both (2..7).
TEST(SearchRingsFailedNic, RailsAliveOnEveryNodeCarryTheRings) {
  const topo::Topology t = ndv5_x2({"nic:n0/mlx5_0", "nic:n1/mlx5_1"});
  EXPECT_EQ(sim::rail_entries(t), (std::vector<int>{2, 3, 4, 5, 6, 7}));
  const auto rings = find_rings(t, 8);
  ASSERT_EQ(rings.size(), 6u);
  for (const auto& [nic, n] : rings_per_nic(t, rings)) EXPECT_LE(n, 1) << nic;
}

}  // namespace
}  // namespace ccforge::search
