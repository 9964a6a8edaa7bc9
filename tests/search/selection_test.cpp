// Winner choice and band merging on hand-written times (no simulator): each expectation follows from
// the rule in search.hpp, spelled out in the comment above it.
#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"

namespace ccforge::search {
namespace {

SizeResult size(ByteCount bytes, double nccl_us, std::vector<std::optional<double>> cand_us) {
  SizeResult r;
  r.bytes = bytes;
  r.nccl = SimTime::from_us(nccl_us);
  r.nccl_algorithm = "nccl:ring:LL";
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
