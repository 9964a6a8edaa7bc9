// The reference inputs make every reduction exact, and count_wrong counts exactly the damaged elements.
#include <cmath>

#include <gtest/gtest.h>

#include "ccforge/executor/executor.hpp"
#include "reference.hpp"

namespace ccforge::validate {
namespace {

using executor::CallSpec;
using executor::RedOp;

// Out-of-place allgather on 4 ranks done by hand: rank r's output block q is rank q's input.
TEST(Reference, CountsEachWrongElementOnce) {
  const CallSpec call{ir::Collective::AllGather, 6, DataType::BFloat16, RedOp::Sum};
  auto buffers = make_inputs(call, 4);
  for (auto& b : buffers)
    for (int q = 0; q < 4; ++q) std::copy(buffers[static_cast<std::size_t>(q)].send.begin(), buffers[static_cast<std::size_t>(q)].send.end(), b.recv.begin() + q * 12);
  EXPECT_EQ(count_wrong(call, 4, buffers), 0);
  executor::store_element(DataType::BFloat16, 1000.0, buffers[2].recv.data() + 2 * 7);
  executor::store_element(DataType::BFloat16, -3.0, buffers[0].recv.data());
  EXPECT_EQ(count_wrong(call, 4, buffers), 2);
}

// Sums of 8 half inputs stay integers below 2048, where every integer is a half: any order is exact.
TEST(Reference, HalfSumInputsStayExact) {
  const CallSpec call{ir::Collective::AllReduce, 4096, DataType::Half, RedOp::Sum};
  double worst = 0;
  for (std::size_t i = 0; i < call.count; ++i) {
    double sum = 0;
    for (int r = 0; r < 8; ++r) sum += input_value(call, 8, r, i);
    worst = std::max(worst, sum);
  }
  EXPECT_LE(worst, 2048.0);
  EXPECT_GT(worst, 100.0);  // and the values are not trivially small
}

// Average inputs are multiples of the rank count whose sum stays exact in half: the mean is exact.
TEST(Reference, AverageInputsDivideExactly) {
  const CallSpec call{ir::Collective::AllReduce, 4096, DataType::Half, RedOp::Avg};
  double worst = 0;
  for (std::size_t i = 0; i < call.count; ++i) {
    double sum = 0;
    for (int r = 0; r < 8; ++r) {
      const double v = input_value(call, 8, r, i);
      ASSERT_EQ(std::fmod(v, 8.0), 0.0);
      sum += v;
    }
    worst = std::max(worst, sum);
  }
  EXPECT_LE(worst, 2048.0);
  EXPECT_GT(worst, 100.0);
}

// In-place reducescatter: each rank's result sits at rank*count inside its one buffer.
TEST(Reference, InPlaceResultsAreReadAtTheAliasOffset) {
  const CallSpec call{ir::Collective::ReduceScatter, 3, DataType::Int32, RedOp::Max, true};
  auto buffers = make_inputs(call, 2);
  // Put the max of both ranks' inputs at each rank's slice: elements r*3 .. r*3+2.
  for (int r = 0; r < 2; ++r)
    for (std::size_t j = 0; j < 3; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * 3 + j;
      const double v = std::max(input_value(call, 2, 0, i), input_value(call, 2, 1, i));
      executor::store_element(DataType::Int32, v, buffers[static_cast<std::size_t>(r)].recv.data() + i * 4);
    }
  EXPECT_EQ(count_wrong(call, 2, buffers), 0);
}

}  // namespace
}  // namespace ccforge::validate
