// Tree packing on hand-built graphs whose optimal allgather rate a comment derives from the cut
// condition B+(S) >= x * |S| over vertex sets S that miss at least one GPU.
#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

CapacityMatrix empty(int p) { return CapacityMatrix(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(p), 0.0)); }

TEST(SearchTreePacking, BidirectionalRingOfFour) {
  // Each GPU receives on two links of capacity 1: S = all but v gives 2 >= 3x, so x* = 2/3.
  CapacityMatrix cap = empty(4);
  for (int i = 0; i < 4; ++i) cap[i][(i + 1) % 4] = cap[(i + 1) % 4][i] = 1.0;
  const auto packing = pack_trees(cap, 2);
  ASSERT_TRUE(packing);
  EXPECT_NEAR(packing->optimal_rate.bytes_per_s, 2.0 / 3.0, 1e-5);
  EXPECT_LE(packing->packed_rate.bytes_per_s, packing->optimal_rate.bytes_per_s * (1 + 1e-5));
  EXPECT_EQ(packing->trees.size(), 8u);
}

TEST(SearchTreePacking, CompleteGraphOfFourReachesTheBound) {
  // In-capacity 3 against |S| = 3 gives x* = 1; one star per root uses every link exactly once.
  CapacityMatrix cap = empty(4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) cap[i][j] = 1.0;
  const auto packing = pack_trees(cap, 1);
  ASSERT_TRUE(packing);
  EXPECT_NEAR(packing->optimal_rate.bytes_per_s, 1.0, 1e-5);
  EXPECT_NEAR(packing->packed_rate.bytes_per_s, 1.0, 1e-6);
}

TEST(SearchTreePacking, TreesSpanAndAreRootedWhereClaimed) {
  CapacityMatrix cap = empty(5);
  for (int i = 0; i < 5; ++i) cap[i][(i + 1) % 5] = cap[(i + 1) % 5][i] = 2.0;
  const auto packing = pack_trees(cap, 3);
  ASSERT_TRUE(packing);
  ASSERT_EQ(packing->trees.size(), 15u);
  for (std::size_t i = 0; i < packing->trees.size(); ++i) {
    const auto& t = packing->trees[i];
    EXPECT_EQ(t.root, static_cast<int>(i / 3));
    for (int v = 0; v < 5; ++v) {
      int hops = 0;
      for (int u = v; u != t.root; u = t.parent[static_cast<std::size_t>(u)]) {
        ASSERT_GE(t.parent[static_cast<std::size_t>(u)], 0);
        ASSERT_GT(cap[t.parent[static_cast<std::size_t>(u)]][u], 0.0) << "tree uses a missing link";
        ASSERT_LT(++hops, 5) << "cycle in tree";
      }
    }
  }
}

// synthesis_tree_sets stops adding trees per root once a packing reaches the rate no packing can pass
// (tree_sets.cpp); on the MI300X full mesh one tree per root reaches it in every traffic direction.
TEST(SearchTreePacking, MoreTreesPerRootDoNotBeatOnePerRootOnTheMi300xMesh) {
  const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/mi300x.xml");
  for (TreeTraffic traffic : {TreeTraffic::Down, TreeTraffic::Up, TreeTraffic::Both}) {
    const PackingGraph graph = packing_graph(t, traffic);
    const auto single = pack_trees(graph, 1);
    ASSERT_TRUE(single);
    for (int trees = 2; trees <= 8; ++trees) {
      const auto packing = pack_trees(graph, trees);
      ASSERT_TRUE(packing);
      EXPECT_LE(packing->packed_rate.bytes_per_s, single->packed_rate.bytes_per_s * (1 + 1e-9)) << trees << " trees per root";
      EXPECT_LE(packing->packed_rate.bytes_per_s, packing->optimal_rate.bytes_per_s * (1 + 1e-5));
    }
  }
  for (ir::Collective coll : {ir::Collective::AllGather, ir::Collective::ReduceScatter, ir::Collective::AllReduce})
    EXPECT_EQ(synthesis_tree_sets(t, coll).size(), 1u) << ir::to_string(coll);
}

TEST(SearchTreePacking, DisconnectedGraphIsRejected) {
  CapacityMatrix cap = empty(4);
  cap[0][1] = cap[1][0] = cap[2][3] = cap[3][2] = 1.0;
  EXPECT_FALSE(pack_trees(cap, 1));
}

TEST(SearchTreePacking, OneWayLinksAreNotEnough) {
  CapacityMatrix cap = empty(3);
  cap[0][1] = cap[1][2] = 1.0;  // 2 cannot reach 0
  EXPECT_FALSE(pack_trees(cap, 1));
}

}  // namespace
}  // namespace ccforge::search
