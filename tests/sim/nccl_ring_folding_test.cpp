// NCCL's multi-node ring run per block of equivalent ranks (sim/src/nccl/ring_folding.hpp): the folded
// lowering gives the unfolded one's time, the block found is the fabric's period (a node on one leaf per
// rail, a leaf's nodes where rings cross leaves), and where the symmetry breaks nothing is folded.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ccforge/sim/node_rings.hpp"
#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "lowering.hpp"
#include "nccl_lowering.hpp"
#include "ring_folding.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& load(const std::string& path) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/" + path)).first;
  return it->second;
}
const topo::Topology& ndv5_x2() { return load("data/topologies/ndv5-x2.xml"); }
const topo::Topology& ndv5_x16() { return load("data/topologies/ndv5-x16.xml"); }
// 8 nodes, 2 per leaf: rings cross leaves every 2 nodes.
const topo::Topology& two_per_leaf() { return load("tests/sim/nccl_ndv5_x8_2perleaf.xml"); }
// 6 nodes on leaves of 4 and 2: no block repeats.
const topo::Topology& uneven_leaves() { return load("tests/sim/nccl_ndv5_x6_uneven_leaves.xml"); }

constexpr double kMiB = 1024.0 * 1024;

struct Lowered {
  std::size_t tasks;
  double us;
};

Lowered lower_and_run(const topo::Topology& topo, const nccl::NcclCall& call, bool fold) {
  const SimParams params;
  Lowering low(topo, params.constants, nullptr);
  nccl::lower_ring(low, call, fold);
  const std::size_t tasks = low.graph().size();
  return {tasks, low.run().makespan.us()};
}

// The fold's run equals the full ring's, and it runs `ratio` times fewer tasks.
void expect_exact(const topo::Topology& topo, const nccl::NcclCall& call, std::size_t ratio) {
  const Lowered all = lower_and_run(topo, call, false);
  const Lowered one = lower_and_run(topo, call, true);
  const std::string what = topo.name() + " " + ir::to_string(call.coll) + " " + ir::to_string(call.proto) + " " +
                           std::to_string(call.bytes) + " B, " + std::to_string(call.nchannels) + " channels";
  EXPECT_EQ(one.tasks * ratio, all.tasks) << what;
  EXPECT_NEAR(one.us, all.us, 1e-9 * all.us) << what;
}

constexpr ir::Collective kColls[] = {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::ReduceScatter};
constexpr ir::Protocol kProtos[] = {ir::Protocol::LL, ir::Protocol::LL128, ir::Protocol::Simple};

// Each block of the distinct rings' fold (8 rails into 1) for every collective and protocol.
TEST(NcclRingFolding, TwoNodesFoldToOneNodeOfOneRing) {
  for (ir::Collective coll : kColls)
    for (ir::Protocol proto : kProtos)
      for (double bytes : {64.0 * 1024, 16 * kMiB}) expect_exact(ndv5_x2(), {coll, bytes, proto, 16}, 8 * 2);
}

TEST(NcclRingFolding, SixteenNodesOnOneLeafPerRailFoldToOneNode) {
  for (ir::Protocol proto : kProtos) expect_exact(ndv5_x16(), {ir::Collective::AllReduce, 4 * kMiB, proto, 16}, 8 * 16);
  expect_exact(ndv5_x16(), {ir::Collective::AllGather, 4 * kMiB, ir::Protocol::LL128, 16}, 8 * 16);
  expect_exact(ndv5_x16(), {ir::Collective::ReduceScatter, 4 * kMiB, ir::Protocol::Simple, 16}, 8 * 16);
}

TEST(NcclRingFolding, RingsCrossingLeavesFoldToOneLeafsNodes) {
  for (ir::Collective coll : kColls)
    for (ir::Protocol proto : kProtos) expect_exact(two_per_leaf(), {coll, 2 * kMiB, proto, 16}, 8 * 4);
  // Several chunks per channel (the chunk loop).
  expect_exact(two_per_leaf(), {ir::Collective::AllReduce, 64 * kMiB, ir::Protocol::Simple, 16}, 8 * 4);
}

TEST(NcclRingFolding, RingsOfUnequalWeightFoldEachByBlocks) {
  // 12 channels over 8 distinct rings: weights 2 and 1, so each ring runs, each folded to one leaf's nodes.
  expect_exact(two_per_leaf(), {ir::Collective::AllReduce, 2 * kMiB, ir::Protocol::LL128, 12}, 4);
  expect_exact(ndv5_x2(), {ir::Collective::AllGather, 2 * kMiB, ir::Protocol::LL, 12}, 2);
}

TEST(NcclRingFolding, FallsBackWhereNoBlockRepeats) {
  // Uneven leaves: only the rails fold (blocks of all 6 nodes).
  expect_exact(uneven_leaves(), {ir::Collective::AllReduce, 2 * kMiB, ir::Protocol::Simple, 16}, 8);
  // A degraded NIC cable on node 3's rail 0: rail 0's ring differs from the others and from itself
  // shifted, so nothing folds.
  const topo::Topology nic = two_per_leaf().with_changes({topo::parse_degradation("link:n3/mlx5_0-leaf1=0.5")});
  expect_exact(nic, {ir::Collective::AllGather, 2 * kMiB, ir::Protocol::LL128, 16}, 1);
  // A degraded leaf uplink: the routes avoid it (leaf 1 reaches its neighbours through the other
  // spine), so the rings' routes are still images of one another and all of it folds. The check reads
  // the routes, not the fabric.
  const topo::Topology uplink = two_per_leaf().with_changes({topo::parse_degradation("link:leaf1-spine0=0.5")});
  expect_exact(uplink, {ir::Collective::AllGather, 2 * kMiB, ir::Protocol::LL128, 16}, 8 * 4);
  // A degraded NVLink port inside node 0 breaks every block fold; the rails stay images of one another
  // only if it breaks them alike, which it does not.
  const topo::Topology nvlink = ndv5_x2().with_changes({topo::parse_degradation("link:n0/0001:00:00.0-n0/nvswitch=0.5")});
  expect_exact(nvlink, {ir::Collective::AllReduce, 2 * kMiB, ir::Protocol::Simple, 16}, 1);
}

// The block is the fabric's period, found on the routes: a leaf's 32 nodes on ndv5-x128 (4 leaves per rail).
TEST(NcclRingFolding, BlockIsALeafsNodesOnNdv5X128) {
  const topo::Topology& topo = load("data/topologies/ndv5-x128.xml");
  const SimParams params;
  Lowering low(topo, params.constants, nullptr);
  const std::vector<int> entries = rail_entries(topo);
  std::vector<std::vector<int>> rings;
  for (int c = 0; c < static_cast<int>(entries.size()); ++c) rings.push_back(multi_node_ring(topo, entries, {}, c));
  const ProtocolCosts costs = protocol_costs(params.constants, ir::Protocol::LL, topo.gpu(0).model->arch);
  const auto fold = nccl::fold_ring(low, costs, rings, true);
  ASSERT_TRUE(fold.has_value());
  EXPECT_EQ(fold->block_nodes, 32);
  EXPECT_EQ(fold->positions, 32 * 8);
  EXPECT_EQ(fold->paths.size(), 1u);
}

}  // namespace
}  // namespace ccforge::sim
