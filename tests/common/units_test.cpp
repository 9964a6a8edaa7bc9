#include "ccforge/common/units.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace ccforge {
namespace {

TEST(ParseSize, PlainBytesAndPowerOfTwoSuffixes) {
  EXPECT_EQ(parse_size("1024"), 1024u);
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("64M"), 64u << 20);
  EXPECT_EQ(parse_size("1G"), 1u << 30);
  EXPECT_EQ(parse_size("2KB"), 2048u);
}

TEST(ParseSize, RejectsGarbage) {
  EXPECT_FALSE(parse_size(""));
  EXPECT_FALSE(parse_size("K"));
  EXPECT_FALSE(parse_size("1.5M"));
  EXPECT_FALSE(parse_size("-1"));
  EXPECT_FALSE(parse_size("99999999999999999999"));
}

TEST(SizeSweep, FollowsNcclTestsFlags) {
  EXPECT_EQ(size_sweep(1024, 8192, 2), (std::vector<ByteCount>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(size_sweep(1024, 5000, 4), (std::vector<ByteCount>{1024, 4096}));
  EXPECT_EQ(size_sweep(7, 7, 2), (std::vector<ByteCount>{7}));
}

TEST(SizeSweep, IllFormedSweepsAreEmptyAndNeverLoop) {
  EXPECT_TRUE(size_sweep(0, 1024, 2).empty());
  EXPECT_TRUE(size_sweep(2048, 1024, 2).empty());
  EXPECT_TRUE(size_sweep(1, 1024, 1).empty());
  // Near the top of the range the next step would overflow: the sweep must stop, not wrap around.
  const ByteCount top = std::numeric_limits<ByteCount>::max();
  EXPECT_EQ(size_sweep(top / 2 + 1, top, 2).size(), 1u);
}

TEST(LinearSizeSweep, StepsLikeNcclTestsStepBytes) {
  EXPECT_EQ(linear_size_sweep(1024, 4096, 1024), (std::vector<ByteCount>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(linear_size_sweep(1000, 2500, 1000), (std::vector<ByteCount>{1000, 2000}));
  EXPECT_TRUE(linear_size_sweep(0, 1024, 8).empty());
  EXPECT_TRUE(linear_size_sweep(8, 1024, 0).empty());
  const ByteCount top = std::numeric_limits<ByteCount>::max();
  EXPECT_EQ(linear_size_sweep(top - 1, top, top / 2).size(), 1u);
}

TEST(FormatSize, UsesTheLargestExactSuffix) {
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(3u << 20), "3M");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(0), "0");
}

TEST(TransferTime, OneMegabyteAtOneGigabytePerSecondIsOneMillisecond) {
  // 10^6 bytes / 10^9 B/s = 10^-3 s = 10^9 ps
  EXPECT_EQ(transfer_time(1e6, Bandwidth::GBps(1.0)).ps, 1'000'000'000);
  EXPECT_EQ(transfer_time(0, Bandwidth::GBps(1.0)).ps, 0);
}

TEST(TransferTime, RoundsUpSoNoTransferIsFree) {
  // 1 byte at 10^13 B/s is 0.1 ps: must cost one tick, not zero.
  EXPECT_EQ(transfer_time(1, Bandwidth{1e13}).ps, 1);
}

TEST(Bandwidth, NetworkRatesAreBits) {
  // 400 Gb/s NDR = 50 GB/s (formats.md §4: speed/8000 GB/s).
  EXPECT_DOUBLE_EQ(Bandwidth::Gbps(400).gbps(), 50.0);
}

TEST(SimTime, MicrosecondsRoundTrip) {
  EXPECT_EQ(SimTime::from_us(1.5).ps, 1'500'000);
  EXPECT_DOUBLE_EQ(SimTime::from_us(13.12).us(), 13.12);
}

}  // namespace
}  // namespace ccforge
