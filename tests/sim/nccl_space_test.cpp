// NCCL's space per call (what a tuner plugin may force) and "why this algorithm" (explain_nccl):
// NCCL's pick first, every point runnable and distinct, the pick's time is simulate_nccl's, and on
// ndv5-x2 allreduce NCCL's pick (NVLS-tree) loses at 512 KB, the size where the measured 2-node H100
// log (reference measurements, NCCL 2.26.2) runs slower than at 1 MB.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "ccforge/sim/sim.hpp"
#include "topology_cache.hpp"

namespace ccforge::sim {
namespace {

CallSpec half(ByteCount bytes) { return CallSpec{bytes, DataType::Half}; }

TEST(NcclSpace, StartsWithNcclsPickAndListsDistinctRunnablePoints) {
  const SimParams params;
  for (const char* topo : {"ndv5.xml", "ndv5-x2.xml"})
    for (ir::Collective coll : {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::Broadcast})
      for (ByteCount bytes : {ByteCount{4096}, ByteCount{1} << 20, ByteCount{64} << 20}) {
        const auto space = nccl_space(load(topo), coll, bytes, params);
        ASSERT_GE(space.size(), 2u) << topo;
        const NcclChoice pick = nccl_choose(load(topo), coll, bytes, {}, params);
        EXPECT_EQ(space[0].point.name(), pick.name());
        EXPECT_EQ(space[0].point.nchannels, pick.nchannels);
        EXPECT_TRUE(space[0].default_channels);
        std::set<std::tuple<NcclAlgo, ir::Protocol, int>> seen;
        for (const NcclPointTime& p : space) {
          EXPECT_TRUE(seen.insert({p.point.algo, p.point.proto, p.point.nchannels}).second) << p.point.name();
          EXPECT_GE(p.point.nchannels, 1);
          // NCCL could run it: forcing the same algorithm and protocol does not throw.
          EXPECT_NO_THROW(nccl_choose(load(topo), coll, bytes, {p.point.algo, p.point.proto}, params));
        }
      }
}

TEST(NcclSpace, GroupedSendRecvHasNoChoice) {
  EXPECT_TRUE(nccl_space(load("ndv5.xml"), ir::Collective::AllToAll, 1 << 20, SimParams{}).empty());
  EXPECT_TRUE(explain_nccl(load("ndv5.xml"), ir::Collective::Gather, half(1 << 20), SimParams{}).points.empty());
}

TEST(NcclExplain, PickTimeIsNcclsSimulatedTimeAndBestIsTheFastest) {
  const SimParams params;
  const NcclExplanation e = explain_nccl(load("ndv5-x2.xml"), ir::Collective::AllReduce, half(512 << 10), params);
  EXPECT_EQ(e.pick().time, simulate_nccl(load("ndv5-x2.xml"), ir::Collective::AllReduce, half(512 << 10), {}, params).time);
  for (const NcclPointTime& p : e.points) {
    EXPECT_FALSE(p.pruned);
    EXPECT_GT(p.time.ps, 0);
    EXPECT_LE(e.fastest().time, p.time);
  }
}

TEST(NcclExplain, NcclsPickLosesOnTwoNodesAt512KB) {
  // NCCL's model rates tree LL128 at the ring graph's 8 x 45 GB/s; the simulated ring LL is faster.
  const NcclExplanation e = explain_nccl(load("ndv5-x2.xml"), ir::Collective::AllReduce, half(512 << 10), SimParams{});
  EXPECT_EQ(e.pick().point.algo, NcclAlgo::Tree);
  EXPECT_TRUE(e.pick_loses(0.03)) << e.pick().time.us() << " vs " << e.fastest().time.us();
  EXPECT_NE(e.best, 0u);
  // ... but not by any margin: the flag follows min_gain.
  const double gain = e.pick().time.us() / e.fastest().time.us() - 1;
  EXPECT_FALSE(e.pick_loses(gain + 0.01));
}

TEST(NcclExplain, NcclsPickStandsAtLargeSizesOnOneNode) {
  // One NVSwitch node at 256 MB: NVLS, which the sim also finds fastest.
  const NcclExplanation e = explain_nccl(load("ndv5.xml"), ir::Collective::AllReduce, half(256 << 20), SimParams{});
  EXPECT_EQ(e.pick().point.algo, NcclAlgo::Nvls);
  EXPECT_FALSE(e.pick_loses(0.03));
}

}  // namespace
}  // namespace ccforge::sim
