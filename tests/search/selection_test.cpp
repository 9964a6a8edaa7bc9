// Winner choice and band merging on hand-written times (no simulator): each expectation follows from
// the rule in search.hpp, spelled out in the comment above it.
#include <algorithm>

#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"

namespace ccforge::search {
namespace {

SizeResult size(ByteCount bytes, double nccl_us, std::vector<std::optional<double>> cand_us) {
  SizeResult r;
  r.bytes = bytes;
  r.nccl = SimTime::from_us(nccl_us);
  r.lower_bound = SimTime::from_us(1.0);
  for (auto us : cand_us) r.times.push_back(us ? std::optional{SimTime::from_us(*us)} : std::nullopt);
  return r;
}

TEST(SearchChoose, FastestCandidateWinsWhenClearlyFasterThanNccl) {
  const auto c = choose({size(1024, 10.0, {8.0, 5.0, 6.0})}, 0.03);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].winner, 1);
  EXPECT_EQ(c[0].best, SimTime::from_us(5.0));
}

TEST(SearchChoose, NcclKeptUnlessMinGainIsReached) {
  // 10 / 9.8 = 1.02 < 1.03: NCCL stays. 10 / 9.7 = 1.031 >= 1.03: the candidate wins.
  EXPECT_EQ(choose({size(1024, 10.0, {9.8})}, 0.03)[0].winner, -1);
  EXPECT_EQ(choose({size(1024, 10.0, {9.8})}, 0.03)[0].best, SimTime::from_us(10.0));
  EXPECT_EQ(choose({size(1024, 10.0, {9.7})}, 0.03)[0].winner, 0);
  // With no required gain an equal time does not beat NCCL... but a strictly better one does.
  EXPECT_EQ(choose({size(1024, 10.0, {10.0})}, 0.0)[0].winner, 0);
}

ErrorOf off_by(double pct) {
  return [pct](int, ByteCount) { return ExpectedError{pct, true, "test"}; };
}

TEST(SearchChoose, NcclKeptWhereThePredictedGainIsInsideTheExpectedError) {
  // 10 / 8 = 1.25 predicted. Off by 20 %: 1.03 x 1.20 = 1.236 <= 1.25, the candidate wins. Off by 30 %:
  // 1.03 x 1.30 = 1.339 > 1.25, NCCL stays, and the choice still names the fastest candidate and its error.
  EXPECT_EQ(choose({size(1024, 10.0, {8.0})}, 0.03, off_by(20.0))[0].winner, 0);
  const Choice kept = choose({size(1024, 10.0, {8.0})}, 0.03, off_by(30.0))[0];
  EXPECT_EQ(kept.winner, -1);
  EXPECT_EQ(kept.best, SimTime::from_us(10.0));
  EXPECT_EQ(kept.fastest, 0);
  EXPECT_DOUBLE_EQ(kept.error.pct, 30.0);
  EXPECT_NEAR(required_gain(0.03, 30.0), 0.339, 1e-12);
}

TEST(SearchExpectedError, MeasuredCellsHoldOnTheirMachineAndUnmeasuredOnesTakeTheWorst) {
  double worst = 0.0;
  for (const MeasuredError& c : measured_errors()) worst = std::max(worst, c.worst_pct);
  // Published ring Simple allgather files ran 32 MB..1 GB (msccl_ndv5_ag-32m-1g.xml).
  const ExpectedError ring = expected_error("ndv5", ir::Collective::AllGather, "ring", ir::Protocol::Simple, 64u << 20);
  EXPECT_TRUE(ring.measured);
  EXPECT_LT(ring.pct, worst);
  EXPECT_NE(ring.source.find("msccl_ndv5_ag-32m-1g.xml"), std::string::npos);
  // No published broadcast, no LL ring allgather, and nothing measured on another machine.
  for (const ExpectedError& e : {expected_error("ndv5", ir::Collective::Broadcast, "chain", ir::Protocol::LL128, 1u << 30),
                                 expected_error("ndv5", ir::Collective::AllGather, "ring", ir::Protocol::LL, 64u << 20),
                                 expected_error("dgx-h100", ir::Collective::AllGather, "ring", ir::Protocol::Simple, 64u << 20)}) {
    EXPECT_FALSE(e.measured);
    EXPECT_DOUBLE_EQ(e.pct, worst);
  }
}

TEST(SearchChoose, TiesGoToTheLowerIndexAndMissingTimesAreSkipped) {
  const auto c = choose({size(1024, 100.0, {std::nullopt, 5.0, 5.0})}, 0.03);
  EXPECT_EQ(c[0].winner, 1);
  EXPECT_EQ(choose({size(1024, 100.0, {std::nullopt})}, 0.03)[0].winner, -1);
}

TEST(SearchBands, AdjacentEqualWinnersMergeAndBandsAreDisjoint) {
  // winners: 0, 0, NCCL, 1, 1 at 1K..16K
  const auto choices = choose({size(1024, 10, {1, 9}), size(2048, 10, {1, 9}), size(4096, 10, {11, 12}),
                               size(8192, 10, {9, 1}), size(16384, 10, {9, 1})},
                              0.03);
  const auto bands = merge_bands(choices);
  ASSERT_EQ(bands.size(), 3u);
  EXPECT_EQ(bands[0].winner, 0);
  EXPECT_EQ(bands[0].min_bytes, 1024u);
  EXPECT_EQ(bands[0].max_bytes, 4095u);
  EXPECT_EQ(bands[1].winner, -1);
  EXPECT_EQ(bands[1].min_bytes, 4096u);
  EXPECT_EQ(bands[1].max_bytes, 8191u);
  EXPECT_EQ(bands[2].winner, 1);
  EXPECT_EQ(bands[2].min_bytes, 8192u);
  EXPECT_EQ(bands[2].max_bytes, 16384u);
}

TEST(SearchBands, OneWinnerEverywhereIsOneBand) {
  const auto bands = merge_bands(choose({size(1024, 10, {1}), size(2048, 10, {1}), size(4096, 10, {1})}, 0.03));
  ASSERT_EQ(bands.size(), 1u);
  EXPECT_EQ(bands[0].min_bytes, 1024u);
  EXPECT_EQ(bands[0].max_bytes, 4096u);
}

}  // namespace
}  // namespace ccforge::search
