// Ring discovery, tree packing and lower bounds on the bundled topologies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

topo::Topology load(const char* name) {
  return topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name);
}

TEST(SearchRings, Dgx1RingsAreHamiltonianCyclesWithinLinkCapacity) {
  const topo::Topology t = load("dgx1-v100.xml");
  const CapacityMatrix cap = direct_link_capacity(t);
  const auto rings = find_rings(t, 8);
  ASSERT_GE(rings.size(), 2u) << "DGX-1's hybrid cube-mesh has several Hamiltonian NVLink cycles";
  double narrowest = INFINITY;
  for (const auto& row : cap)
    for (double c : row)
      if (c > 0) narrowest = std::min(narrowest, c);
  std::vector<std::vector<double>> used(cap.size(), std::vector<double>(cap.size(), 0.0));
  for (const auto& ring : rings) {
    ASSERT_EQ(ring.size(), 8u);
    for (std::size_t x = 0; x < ring.size(); ++x) {
      const int u = ring[x], v = ring[(x + 1) % ring.size()];
      ASSERT_GT(cap[u][v], 0.0) << "ring hop " << u << "->" << v << " has no direct NVLink";
      used[u][v] += narrowest;
      EXPECT_LE(used[u][v], cap[u][v] * (1 + 1e-9)) << "rings oversubscribe " << u << "->" << v;
    }
  }
}

// One ring packer: the generators' rings on a direct-link mesh are the simulated NCCL baseline's, in
// ascending order (DGX-1: 6, MI300X: 7, every directed link used once).
TEST(SearchRings, MeshRingsAreSimsPackingInAscendingOrder) {
  for (const auto& [name, expected] : {std::pair{"dgx1-v100.xml", 6u}, std::pair{"mi300x.xml", 7u}}) {
    const topo::Topology t = load(name);
    auto packed = sim::mesh_rings(t);
    std::sort(packed.begin(), packed.end());
    const auto rings = find_rings(t, 8);
    EXPECT_EQ(rings.size(), expected) << name;
    EXPECT_EQ(rings, packed) << name;
    EXPECT_EQ(find_rings(t, 2), std::vector<std::vector<int>>(rings.begin(), rings.begin() + 2)) << name;
  }
}

TEST(SearchRings, NvSwitchRingsAreTheIdentityOrder) {
  const auto rings = find_rings(load("ndv5.xml"), 4);
  ASSERT_EQ(rings.size(), 4u);
  for (const auto& r : rings)
    for (int x = 0; x < 8; ++x) EXPECT_EQ(r[x], x);
}

TEST(SearchTreePacking, Dgx1PackingIsValidAndBelowTheBound) {
  const auto packing = pack_trees(direct_link_capacity(load("dgx1-v100.xml")), 2);
  ASSERT_TRUE(packing);
  EXPECT_GT(packing->packed_rate.bytes_per_s, 0.0);
  EXPECT_LE(packing->packed_rate.bytes_per_s, packing->optimal_rate.bytes_per_s * (1 + 1e-5));
  EXPECT_EQ(packing->trees.size(), 16u);
}

TEST(SearchTreePacking, NvSwitchHasNoDirectGraph) {
  EXPECT_FALSE(pack_trees(direct_link_capacity(load("ndv5.xml")), 1));
}

TEST(SearchLowerBound, GrowsWithSizeAndBandwidthTermDominatesLargeSizes) {
  const topo::Topology t = load("ndv4.xml");
  for (auto coll : {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::AllToAll, ir::Collective::Broadcast}) {
    const auto small = lower_bound(t, coll, 1024), large = lower_bound(t, coll, ByteCount{1} << 30);
    EXPECT_LE(small.total(), large.total());
    EXPECT_GT(large.bandwidth, large.latency);
    EXPECT_GT(small.latency, SimTime{0});
  }
}

TEST(SearchLowerBound, AllgatherIsTheInjectionBound) {
  // A100 (no NVLS): allgather of n bytes moves (p-1)/p * n through each GPU's NVLink port.
  const topo::Topology t = load("ndv4.xml");
  const double n = 1 << 30, expect_s = 7.0 / 8.0 * n / t.gpu(0).nvlink_bandwidth.bytes_per_s;
  EXPECT_NEAR(lower_bound(t, ir::Collective::AllGather, 1 << 30).bandwidth.seconds(), expect_s, expect_s * 1e-6);
  // Allreduce moves twice that without in-switch reduction.
  EXPECT_NEAR(lower_bound(t, ir::Collective::AllReduce, 1 << 30).bandwidth.seconds(), 2 * expect_s, expect_s * 1e-6);
}

TEST(SearchLowerBound, MultiNodeAddsTheNetworkCut) {
  const topo::Topology one = load("ndv5.xml"), two = load("ndv5-x2.xml");
  const ByteCount n = ByteCount{1} << 30;
  // Alltoall sends half of every node's data across the network; each GPU's port (NVLink plus its
  // PCIe path to the NIC) is not what binds there.
  EXPECT_GT(lower_bound(two, ir::Collective::AllToAll, n).bandwidth, lower_bound(one, ir::Collective::AllToAll, n).bandwidth);
}

}  // namespace
}  // namespace ccforge::search
