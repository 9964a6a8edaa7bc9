// Collective size conventions shared by the simulator and the measured runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

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

// nccl-tests sizes: gather 8 x 128 B (1024 B total) is a call of count x sizeof(T) = 128 B, which the
// executor's nBytes (sizeMultiplier 1) also is; allgather's nBytes is the whole 1024 B.
TEST(SizeConventions, NcclTestsSizeToExecutorBytes) {
  EXPECT_EQ(ranks_in_size(Collective::Gather, 8), 8);
  EXPECT_EQ(ranks_in_size(Collective::AllReduce, 8), 1);
  EXPECT_EQ(count_bytes(Collective::Gather, 8, 1024), 128u);
  EXPECT_EQ(count_bytes(Collective::AllGather, 8, 1024), 128u);
  EXPECT_EQ(count_bytes(Collective::Broadcast, 8, 1024), 1024u);
  EXPECT_EQ(executor_bytes(Collective::Gather, 8, 1024), 128u);
  EXPECT_EQ(executor_bytes(Collective::Scatter, 8, 1024), 128u);
  EXPECT_EQ(executor_bytes(Collective::AllGather, 8, 1024), 1024u);
  EXPECT_EQ(executor_bytes(Collective::AllToAll, 8, 2047), 2047u);
  EXPECT_EQ(executor_bytes(Collective::Reduce, 8, 1000), 1000u);
  // Band ends: [1024, 2047] of gather on 8 ranks is nBytes [128, 255]; 1025 B starts at 129.
  EXPECT_EQ(executor_bytes(Collective::Gather, 8, 2047), 255u);
  EXPECT_EQ(executor_bytes_at_least(Collective::Gather, 8, 1024), 128u);
  EXPECT_EQ(executor_bytes_at_least(Collective::Gather, 8, 1025), 129u);
  EXPECT_EQ(executor_bytes_at_least(Collective::AllGather, 8, 1025), 1025u);
}

using Chunks = std::pair<std::int64_t, std::int64_t>;  // input, output

TEST(SizeConventions, ExecutorBuffersFollowSizeMultiplier) {
  const auto buffers = [](Collective c, int ngpus, int n) {
    const auto b = executor_buffers(c, ngpus, n);
    return b ? Chunks(b->input_chunks, b->output_chunks) : Chunks(-1, -1);
  };
  EXPECT_EQ(buffers(Collective::AllReduce, 8, 16), Chunks(16, 16));
  EXPECT_EQ(buffers(Collective::AllGather, 8, 16), Chunks(2, 16));
  EXPECT_EQ(buffers(Collective::ReduceScatter, 8, 64), Chunks(64, 8));
  EXPECT_EQ(buffers(Collective::AllToAll, 8, 8), Chunks(8, 8));
  EXPECT_EQ(buffers(Collective::Gather, 8, 2), Chunks(2, 16));
  EXPECT_EQ(buffers(Collective::Scatter, 8, 2), Chunks(16, 2));
  EXPECT_EQ(buffers(Collective::AllGather, 8, 12), Chunks(-1, -1));  // 12 chunks do not split over 8 ranks
  EXPECT_EQ(buffers(Collective::Send, 2, 1), Chunks(-1, -1));
  EXPECT_EQ(chunks_per_loop(Collective::Gather, 2, 16), 2);
  EXPECT_EQ(chunks_per_loop(Collective::Scatter, 16, 2), 2);
  EXPECT_EQ(chunks_per_loop(Collective::AllGather, 2, 16), 16);
}

}  // namespace
}  // namespace ccforge::ir
