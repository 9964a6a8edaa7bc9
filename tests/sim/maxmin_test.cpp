// Tiny systems whose max-min fair rates the comments derive by hand.
#include "maxmin.hpp"

#include <gtest/gtest.h>

namespace ccforge::sim {
namespace {

TEST(Maxmin, TwoFlowsShareLinkEvenly) {
  // One 100-unit link, two unbounded flows: each gets 100 / 2 = 50.
  const MaxMinProblem p{{100.0}, {kUnbounded, kUnbounded}, {{0}, {0}}, {}};
  const auto r = solve_maxmin(p);
  EXPECT_DOUBLE_EQ(r[0], 50.0);
  EXPECT_DOUBLE_EQ(r[1], 50.0);
}

TEST(Maxmin, BoundedFlowLeavesRestToOther) {
  // Two flows on one 100-unit link, one capped at 20 -> {20, 80}.
  const MaxMinProblem p{{100.0}, {20.0, kUnbounded}, {{0}, {0}}, {}};
  const auto r = solve_maxmin(p);
  EXPECT_DOUBLE_EQ(r[0], 20.0);
  EXPECT_DOUBLE_EQ(r[1], 80.0);
}

TEST(Maxmin, BottleneckElsewhereFreesCapacity) {
  // Links A=10 and B=100. Flow 0 crosses A and B, flows 1 and 2 cross only B. A (flow 0 alone)
  // saturates at level 10, before B's fair share 100/3; flow 0 freezes at 10, then flows 1 and 2
  // split the remaining 90 of B: 45 each.
  const MaxMinProblem p{{10.0, 100.0}, {kUnbounded, kUnbounded, kUnbounded}, {{0, 1}, {1}, {1}}, {}};
  const auto r = solve_maxmin(p);
  EXPECT_DOUBLE_EQ(r[0], 10.0);
  EXPECT_DOUBLE_EQ(r[1], 45.0);
  EXPECT_DOUBLE_EQ(r[2], 45.0);
}

TEST(Maxmin, ParkingLot) {
  // Chain of two 1-unit links; a long flow crosses both, one short flow on each. Every link has two
  // flows, so all three get 1/2 (the classic max-min parking-lot answer).
  const MaxMinProblem p{{1.0, 1.0}, {kUnbounded, kUnbounded, kUnbounded}, {{0, 1}, {0}, {1}}, {}};
  const auto r = solve_maxmin(p);
  for (double x : r) EXPECT_DOUBLE_EQ(x, 0.5);
}

TEST(Maxmin, ZeroCapacityStopsFlow) {
  // A dead link gives its flow rate 0 instead of looping forever.
  const MaxMinProblem p{{0.0, 50.0}, {kUnbounded, kUnbounded}, {{0}, {1}}, {}};
  const auto r = solve_maxmin(p);
  EXPECT_DOUBLE_EQ(r[0], 0.0);
  EXPECT_DOUBLE_EQ(r[1], 50.0);
}

TEST(Maxmin, WeightedVariableCountsAsManyFlows) {
  // A variable of weight 3 (three identical flows) and a plain flow on a 100-unit link: four equal
  // shares of 25; the weighted variable's members get 25 each, 75 together.
  MaxMinProblem p{{100.0}, {kUnbounded, kUnbounded}, {{0}, {0}}, {3.0, 1.0}};
  const auto r = solve_maxmin(p);
  EXPECT_DOUBLE_EQ(r[0], 25.0);
  EXPECT_DOUBLE_EQ(r[1], 25.0);
}

TEST(Maxmin, FlowWithoutLinksGetsItsBound) {
  const MaxMinProblem p{{}, {7.0}, {{}}, {}};
  EXPECT_DOUBLE_EQ(solve_maxmin(p)[0], 7.0);
}

TEST(Maxmin, ReusedSolverForgetsThePreviousProblem) {
  // BottleneckElsewhereFreesCapacity's system (10, 45, 45), then one bounded flow alone on a link (its
  // bound, 20), then the first again: leftovers of a bigger problem must not leak into a smaller one.
  const MaxMinProblem big{{10.0, 100.0}, {kUnbounded, kUnbounded, kUnbounded}, {{0, 1}, {1}, {1}}, {}};
  const MaxMinProblem small{{100.0}, {20.0}, {{0}}, {}};
  MaxMinSolver solver;
  EXPECT_EQ(solver.solve(big), (std::vector<double>{10.0, 45.0, 45.0}));
  EXPECT_EQ(solver.solve(small), (std::vector<double>{20.0}));
  EXPECT_EQ(solver.solve(big), (std::vector<double>{10.0, 45.0, 45.0}));
}

}  // namespace
}  // namespace ccforge::sim
