// Half/bfloat16 rounding and the reduction ops, against values worked out by hand from IEEE 754.
#include "elements.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace ccforge::executor {
namespace {

TEST(Half, ExactValuesAndLimits) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);           // largest finite half
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_bits_to_float(0x7bff), 65504.0f);
  EXPECT_TRUE(std::isinf(half_bits_to_float(float_to_half_bits(1e6f))));
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 (mantissa 0, even) and 1 + 2^-10: ties go to the even one.
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between mantissa 1 (odd) and 2 (even).
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // 65520 is halfway between 65504 (odd mantissa 0x3ff) and 65536 (inf): rounds to inf.
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);
  EXPECT_EQ(float_to_half_bits(65519.0f), 0x7bff);
  // 1.5 * 2^-24 is halfway between subnormals 1 and 2: goes to 2.
  EXPECT_EQ(float_to_half_bits(1.5f * std::ldexp(1.0f, -24)), 0x0002);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_bits_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even (1).
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
}

template <typename T>
std::vector<std::byte> bytes_of(std::vector<T> v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> values_of(const std::vector<std::byte>& b) {
  std::vector<T> out(b.size() / sizeof(T));
  std::memcpy(out.data(), b.data(), b.size());
  return out;
}

TEST(Reduce, HalfSumRoundsOnceInFloat) {
  // 2048 + 1 = 2049 is not a half (spacing 2 above 2048): ties to even gives 2048.
  auto a = bytes_of<std::uint16_t>({float_to_half_bits(2048.0f), float_to_half_bits(1.5f)});
  auto b = bytes_of<std::uint16_t>({float_to_half_bits(1.0f), float_to_half_bits(2.25f)});
  reduce_elements(DataType::Half, RedOp::Sum, a.data(), a.data(), b.data(), 2);
  const auto r = values_of<std::uint16_t>(a);
  EXPECT_EQ(half_bits_to_float(r[0]), 2048.0f);
  EXPECT_EQ(half_bits_to_float(r[1]), 3.75f);
}

TEST(Reduce, IntegerOpsWrapLikeTheGpu) {
  auto a = bytes_of<std::int32_t>({std::numeric_limits<std::int32_t>::max(), -7, 3});
  auto b = bytes_of<std::int32_t>({1, 5, -9});
  std::vector<std::byte> out(a.size());
  reduce_elements(DataType::Int32, RedOp::Sum, out.data(), a.data(), b.data(), 3);
  EXPECT_EQ(values_of<std::int32_t>(out), (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -2, -6}));
  reduce_elements(DataType::Int32, RedOp::Min, out.data(), a.data(), b.data(), 3);
  EXPECT_EQ(values_of<std::int32_t>(out), (std::vector<std::int32_t>{1, -7, -9}));
  reduce_elements(DataType::Int32, RedOp::Max, out.data(), a.data(), b.data(), 3);
  EXPECT_EQ(values_of<std::int32_t>(out), (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::max(), 5, 3}));
}

// ncclAvg: reductions add, and the division at the end truncates integers and rounds half once.
TEST(Reduce, AverageAddsThenDividesOnce) {
  auto a = bytes_of<std::int32_t>({-7, 9});
  auto b = bytes_of<std::int32_t>({0, 2});
  reduce_elements(DataType::Int32, RedOp::Avg, a.data(), a.data(), b.data(), 2);
  divide_elements(DataType::Int32, a.data(), 2, 2);
  EXPECT_EQ(values_of<std::int32_t>(a), (std::vector<std::int32_t>{-3, 5}));
  auto h = bytes_of<std::uint16_t>({float_to_half_bits(3.0f), float_to_half_bits(2047.0f)});
  divide_elements(DataType::Half, h.data(), 2, 3);
  const auto r = values_of<std::uint16_t>(h);
  EXPECT_EQ(half_bits_to_float(r[0]), 1.0f);
  EXPECT_EQ(half_bits_to_float(r[1]), half_bits_to_float(float_to_half_bits(2047.0f / 3.0f)));
}

TEST(Reduce, ProdOnDoubleAndInt64) {
  auto a = bytes_of<double>({1.5, -2.0});
  auto b = bytes_of<double>({4.0, 0.25});
  reduce_elements(DataType::Double, RedOp::Prod, a.data(), a.data(), b.data(), 2);
  EXPECT_EQ(values_of<double>(a), (std::vector<double>{6.0, -0.5}));
  auto c = bytes_of<std::int64_t>({1LL << 40, -3});
  auto d = bytes_of<std::int64_t>({1LL << 20, 7});
  reduce_elements(DataType::Int64, RedOp::Prod, c.data(), c.data(), d.data(), 2);
  EXPECT_EQ(values_of<std::int64_t>(c), (std::vector<std::int64_t>{1LL << 60, -21}));
}

TEST(Reduce, BFloat16MaxAndMin) {
  auto a = bytes_of<std::uint16_t>({float_to_bfloat16_bits(-1.0f), float_to_bfloat16_bits(3.0f)});
  auto b = bytes_of<std::uint16_t>({float_to_bfloat16_bits(2.0f), float_to_bfloat16_bits(-4.0f)});
  std::vector<std::byte> out(a.size());
  reduce_elements(DataType::BFloat16, RedOp::Max, out.data(), a.data(), b.data(), 2);
  auto r = values_of<std::uint16_t>(out);
  EXPECT_EQ(bfloat16_bits_to_float(r[0]), 2.0f);
  EXPECT_EQ(bfloat16_bits_to_float(r[1]), 3.0f);
  reduce_elements(DataType::BFloat16, RedOp::Min, out.data(), a.data(), b.data(), 2);
  r = values_of<std::uint16_t>(out);
  EXPECT_EQ(bfloat16_bits_to_float(r[0]), -1.0f);
  EXPECT_EQ(bfloat16_bits_to_float(r[1]), -4.0f);
}

}  // namespace
}  // namespace ccforge::executor
