// Tree packing on switch graphs (issue 5, candidates 2): on a PCIe tree and on an NVSwitch with one
// degraded GPU the packed trees route around the link a ring must cross, and win in simulation; on a
// healthy NVSwitch nothing can beat the ring, so no trees are offered.
#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "best_candidate.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

using C = ir::Collective;

topo::Topology load(const char* name) {
  return topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name);
}

void expect_trees_beat_rings(const char* topology, C coll, ByteCount bytes) {
  const topo::Topology t = load(topology);
  const CandidateSet set = enumerate_candidates(t, coll);
  std::string ring_name, tree_name;
  const auto ring = best_of(t, set, "ring", bytes, ring_name, ir::Protocol::Simple);
  const auto tree = best_of(t, set, "treepack", bytes, tree_name, ir::Protocol::Simple);
  ASSERT_TRUE(ring && tree) << topology << " " << ir::to_string(coll);
  EXPECT_LT(*tree, *ring) << topology << " " << ir::to_string(coll) << " " << bytes << " B: " << tree_name << " "
                          << tree->us() << " us vs " << ring_name << " " << ring->us() << " us";
}

double cpu_link_bandwidth(const topo::Topology& t) {
  for (const topo::Link& l : t.links())
    if (l.kind == topo::LinkKind::CpuInterconnect) return l.bandwidth.bytes_per_s;
  return 0.0;
}

TEST(SearchSwitchSynthesis, PcieTreeReachesTheCpuLinkCutBound) {
  // GPUs 0,1 sit under socket 0, GPUs 2,3 under socket 1. Cut {2,3}: both of 0's and 1's data must
  // cross one direction of the CPU link, 2x <= B_cpu, while each GPU's PCIe Gen4 x16 port (31.5 GB/s)
  // allows 3x; so x* = B_cpu / 2. A ring crosses each direction with 3 roots' data (x = B_cpu / 3);
  // trees that cross once per root reach x*.
  const topo::Topology t = load("pcie-4gpu.xml");
  const double cpu = cpu_link_bandwidth(t);
  ASSERT_GT(cpu, 0.0);
  const PackingGraph graph = packing_graph(t, TreeTraffic::Down);
  EXPECT_TRUE(graph.switched);
  const auto packing = pack_trees(graph, 1);
  ASSERT_TRUE(packing);
  EXPECT_NEAR(packing->optimal_rate.bytes_per_s, cpu / 2, cpu * 1e-5);
  EXPECT_NEAR(packing->packed_rate.bytes_per_s, cpu / 2, cpu * 1e-5);
  EXPECT_FALSE(synthesis_tree_sets(t, C::AllGather).empty());
  EXPECT_FALSE(synthesis_tree_sets(t, C::AllReduce).empty());
}

TEST(SearchSwitchSynthesis, PcieTreesBeatTheBestRing) {
  expect_trees_beat_rings("pcie-4gpu.xml", C::AllGather, ByteCount{64} << 20);
  expect_trees_beat_rings("pcie-4gpu.xml", C::AllReduce, ByteCount{64} << 20);
}

TEST(SearchSwitchSynthesis, AllreduceTreesUnloadTheDegradedGpu) {
  // Rank 5 has 8 of 12 NVLinks. Allgather cannot avoid it (every GPU receives (p-1)/p of the data,
  // ring or trees), so no trees are offered. Allreduce trees load a GPU's port once per incident tree
  // edge and direction, in shares of N/p per tree; a ring loads every port with 2(p-1) shares, and the
  // trees must keep rank 5 below that.
  const topo::Topology t = load("ndv4-degraded.xml");
  EXPECT_TRUE(synthesis_tree_sets(t, C::AllGather).empty());
  const auto sets = synthesis_tree_sets(t, C::AllReduce);
  ASSERT_FALSE(sets.empty());
  const auto& trees = sets.front();
  double incident = 0.0;
  for (const auto& tree : trees)
    for (std::size_t v = 0; v < tree.parent.size(); ++v)
      if (tree.parent[v] >= 0) incident += (v == 5) + (tree.parent[v] == 5);
  const double per_root = static_cast<double>(trees.size()) / t.num_gpus();
  EXPECT_LT(incident / per_root, 2.0 * (t.num_gpus() - 1));
}

TEST(SearchSwitchSynthesis, DegradedNvlinkAllreduceTreesBeatTheBestRing) {
  expect_trees_beat_rings("ndv4-degraded.xml", C::AllReduce, ByteCount{64} << 20);
}

TEST(SearchSwitchSynthesis, HealthyNvSwitchOffersNoTrees) {
  const topo::Topology t = load("ndv4.xml");
  for (C coll : {C::AllReduce, C::AllGather, C::ReduceScatter, C::Broadcast, C::Reduce})
    EXPECT_TRUE(synthesis_tree_sets(t, coll).empty()) << ir::to_string(coll);
}

TEST(SearchSwitchSynthesis, DirectConnectGraphsKeepTheirTrees) {
  EXPECT_EQ(synthesis_tree_sets(load("dgx1-v100.xml"), C::AllGather).size(), 2u);
  EXPECT_TRUE(synthesis_tree_sets(load("ndv5-x2.xml"), C::AllGather).empty()) << "multi-node is hierarchical's";
}

}  // namespace
}  // namespace ccforge::search
