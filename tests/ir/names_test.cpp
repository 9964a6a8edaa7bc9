// Collective size conventions shared by the simulator and the measured runs.
#include <gtest/gtest.h>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {
namespace {

TEST(SizeMultiplier, WholeBufferCollectivesScaleByRanks) {
  EXPECT_EQ(size_multiplier(Collective::AllGather, 8), 8);
  EXPECT_EQ(size_multiplier(Collective::ReduceScatter, 8), 8);
  EXPECT_EQ(size_multiplier(Collective::AllToAll, 8), 8);
  EXPECT_EQ(size_multiplier(Collective::AllReduce, 8), 1);
  EXPECT_EQ(size_multiplier(Collective::Broadcast, 8), 1);
}

TEST(BusBandwidth, FollowsNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::AllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::AllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::AllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::Reduce, 8), 1.0);
}

}  // namespace
}  // namespace ccforge::ir
