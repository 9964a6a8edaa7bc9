// search::phase_seconds_left: the ETA `ccforge tune` prints, taken from the pieces actually worked on.
#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"

namespace ccforge::search {
namespace {

// 100 pieces, 40 pruned and 10 simulated in 5 s: the 50 left cost 0.5 s each. Averaging over all 50
// done (0.1 s each) would say 5 s, too short; pruned pieces cost no time.
TEST(PhaseEstimate, AveragesOnlyTheWorkedPieces) {
  const std::optional<double> left = phase_seconds_left({kPhaseSimulations, 50, 100, 40}, 5.0);
  ASSERT_TRUE(left);
  EXPECT_DOUBLE_EQ(*left, 25.0);
}

// Pruning shrinks what is left at once: the same 10 simulations with 80 pruned leave 10 pieces, 5 s.
TEST(PhaseEstimate, PrunedPiecesLeaveTheRemainder) {
  EXPECT_DOUBLE_EQ(*phase_seconds_left({kPhaseSimulations, 90, 100, 80}, 5.0), 5.0);
}

TEST(PhaseEstimate, UnknownUntilAPieceIsWorked) {
  EXPECT_FALSE(phase_seconds_left({kPhaseSimulations, 0, 100, 0}, 0.0));
  EXPECT_FALSE(phase_seconds_left({kPhaseSimulations, 30, 100, 30}, 2.0));  // only pruned so far
  EXPECT_FALSE(phase_seconds_left({kPhaseOutOfPlace, 3, 0, 0}, 1.0));  // total not known yet
}

TEST(PhaseEstimate, NothingLeftOnceAllAreDone) {
  EXPECT_DOUBLE_EQ(*phase_seconds_left({kPhaseSimulations, 100, 100, 90}, 5.0), 0.0);
  EXPECT_DOUBLE_EQ(*phase_seconds_left({kPhaseSimulations, 100, 100, 100}, 0.0), 0.0);
}

}  // namespace
}  // namespace ccforge::search
