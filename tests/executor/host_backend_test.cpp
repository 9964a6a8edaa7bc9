// The host backend runs hand-built algorithms: results are compared with the collective's definition,
// and broken algorithms (mismatched transfers, deadlocks, bad structure) must become one-line errors.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "algorithms.hpp"
#include "buffers.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/executor/executor.hpp"

namespace ccforge::executor {
namespace {

using ir::BufferKind;
using ir::OpType;
using testing::add_tb;
using testing::empty_algorithm;
using testing::ring_allreduce;
using testing::step;
using testing::allreduce_sum_expected;
using testing::make_buffers;
using testing::output_of;

class RingAllReduce : public ::testing::TestWithParam<std::tuple<int, ir::Protocol, std::size_t>> {};

TEST_P(RingAllReduce, SumsEveryElementOnEveryRank) {
  const auto [n, proto, chunk_elems] = GetParam();
  const ir::Algorithm algo = ring_allreduce(n, proto);
  const CallSpec call{ir::Collective::AllReduce, chunk_elems * static_cast<std::size_t>(n), DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, n);
  const Timing t = make_host_backend()->run(algo, call, buffers, 1);
  EXPECT_EQ(t.iterations, 1);
  for (int r = 0; r < n; ++r) {
    const auto out = output_of(call, buffers[static_cast<std::size_t>(r)], n, r);
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], allreduce_sum_expected(n, i)) << "rank " << r << " element " << i;
  }
}

// Chunk sizes: 3 elements (many chunks per primitive call), and 20000 floats = 80,000 B per chunk,
// which is 3 LL tiles of 32 KiB (the last one partial) and one Simple tile.
INSTANTIATE_TEST_SUITE_P(Sizes, RingAllReduce,
                         ::testing::Combine(::testing::Values(2, 3, 8), ::testing::Values(ir::Protocol::Simple, ir::Protocol::LL),
                                            ::testing::Values(std::size_t{3}, std::size_t{20000})));

TEST(HostBackend, RepeatedCallsKeepOutOfPlaceResultsStable) {
  const ir::Algorithm algo = ring_allreduce(4, ir::Protocol::LL);
  const CallSpec call{ir::Collective::AllReduce, 4 * 10000, DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, 4);
  make_host_backend()->run(algo, call, buffers, 5);
  const auto out = output_of(call, buffers[2], 4, 2);
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], allreduce_sum_expected(4, i));
}

// ncclAvg: the sum divided by the rank count once per call, in and out of place, on every rank.
TEST(HostBackend, AverageDividesTheSumOncePerCall) {
  for (const int n : {3, 8}) {
    ir::Algorithm algo = ring_allreduce(n, ir::Protocol::Simple);
    algo.inplace = true;  // its first step copies input to output, a no-op when they alias
    for (const bool inplace : {false, true}) {
      const CallSpec call{ir::Collective::AllReduce, 5 * static_cast<std::size_t>(n), DataType::Float, RedOp::Avg, inplace};
      auto buffers = make_buffers(call, n);
      make_host_backend()->run(algo, call, buffers, 1);
      for (int r = 0; r < n; ++r) {
        const auto out = output_of(call, buffers[static_cast<std::size_t>(r)], n, r);
        for (std::size_t i = 0; i < out.size(); ++i)
          ASSERT_EQ(out[i], allreduce_sum_expected(n, i) / static_cast<float>(n)) << n << " ranks, rank " << r << " element " << i;
      }
    }
  }
}

// Allgather on 2 ranks in place: rank r's input is output chunk r; each sends it to the peer.
TEST(HostBackend, InPlaceAllGatherUsesTheAliasedInput) {
  ir::Algorithm algo = empty_algorithm(ir::Collective::AllGather, 2, 2, ir::Protocol::Simple);
  algo.inplace = true;
  algo.outofplace = false;
  for (int r = 0; r < 2; ++r) {
    auto& tb = add_tb(algo, r, 1 - r, 1 - r);
    tb.steps.push_back(step(OpType::Send, BufferKind::Output, r, BufferKind::Output, r));
    tb.steps.push_back(step(OpType::Recv, BufferKind::Output, 1 - r, BufferKind::Output, 1 - r));
  }
  const CallSpec call{ir::Collective::AllGather, 5, DataType::Float, RedOp::Sum, /*inplace=*/true};
  auto buffers = make_buffers(call, 2);
  make_host_backend()->run(algo, call, buffers, 1);
  for (int r = 0; r < 2; ++r) {
    const auto out = output_of(call, buffers[static_cast<std::size_t>(r)], 2, r);
    for (int src = 0; src < 2; ++src)
      for (std::size_t i = 0; i < 5; ++i) ASSERT_EQ(out[static_cast<std::size_t>(src) * 5 + i], static_cast<float>(src * 1000 + static_cast<int>(i)));
  }
}

// Rank r: tb0 sends its input to the peer; tb1 receives it into scratch (hasdep); tb2 copies its own
// input to the output and then, after tb1's step 0, reduces the scratch in: a two-rank allreduce whose
// only ordering between tb1 and tb2 is the (depid, deps) flag.
ir::Algorithm allreduce_through_scratch(bool publish_flag) {
  ir::Algorithm algo = empty_algorithm(ir::Collective::AllReduce, 2, 1, ir::Protocol::LL);
  for (int r = 0; r < 2; ++r) {
    algo.gpus[static_cast<std::size_t>(r)].scratch_chunks = 1;
    add_tb(algo, r, 1 - r, -1).steps.push_back(step(OpType::Send, BufferKind::Input, 0, BufferKind::Scratch, 0));
    auto& receiver = add_tb(algo, r, -1, 1 - r);
    receiver.steps.push_back(step(OpType::Recv, BufferKind::Input, -1, BufferKind::Scratch, 0));
    receiver.steps.back().has_dep = publish_flag;
    auto& reducer = add_tb(algo, r, -1, -1);
    reducer.steps.push_back(step(OpType::Copy, BufferKind::Input, 0, BufferKind::Output, 0));
    reducer.steps.push_back(step(OpType::Reduce, BufferKind::Scratch, 0, BufferKind::Output, 0));
    reducer.steps.back().dep_tb = 1;
    reducer.steps.back().dep_step = 0;
    reducer.steps.back().line = 40 + r;
  }
  return algo;
}

TEST(HostBackend, CrossTbDependencyOrdersScratchUse) {
  const ir::Algorithm algo = allreduce_through_scratch(true);
  const CallSpec call{ir::Collective::AllReduce, 9000, DataType::Float, RedOp::Sum};  // 36,000 B: 2 LL tiles
  auto buffers = make_buffers(call, 2);
  make_host_backend()->run(algo, call, buffers, 3);
  for (int r = 0; r < 2; ++r) {
    const auto out = output_of(call, buffers[static_cast<std::size_t>(r)], 2, r);
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], allreduce_sum_expected(2, i));
  }
}

TEST(HostBackend, DependencyOnAStepThatNeverPublishesIsADeadlock) {
  const ir::Algorithm algo = allreduce_through_scratch(false);  // hasdep missing on the receive
  const CallSpec call{ir::Collective::AllReduce, 16, DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, 2);
  try {
    make_host_backend(ExecOptions{std::chrono::milliseconds(200)})->run(algo, call, buffers, 1);
    FAIL() << "expected a deadlock";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), ::testing::MatchesRegex("test.xml:4[01]: deadlock: no step finished for 200 ms; rank . tb 2 step 1 "
                                                  "waits for tb 1 to pass step 0 .*"));
  }
}

TEST(HostBackend, BothRanksReceivingFirstIsADeadlock) {
  ir::Algorithm algo = empty_algorithm(ir::Collective::AllReduce, 2, 1, ir::Protocol::Simple);
  for (int r = 0; r < 2; ++r) {
    auto& tb = add_tb(algo, r, 1 - r, 1 - r);
    tb.steps.push_back(step(OpType::RecvReduceCopy, BufferKind::Input, 0, BufferKind::Output, 0));
    tb.steps.push_back(step(OpType::Send, BufferKind::Input, 0, BufferKind::Output, 0));
  }
  const CallSpec call{ir::Collective::AllReduce, 8, DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, 2);
  EXPECT_THROW(
      {
        try {
          make_host_backend(ExecOptions{std::chrono::milliseconds(100)})->run(algo, call, buffers, 1);
        } catch (const DiagError& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr("waits to receive from rank"));
          throw;
        }
      },
      DiagError);
}

// Each rank's single tb sends `sends` transfers before it receives any. Simple occupies 4 of the 8
// slots per transfer (MSCCL_CHUNKSTEPS), so a third outstanding send blocks both ranks; LL takes one slot.
ir::Algorithm send_ahead(int sends, ir::Protocol proto) {
  ir::Algorithm algo = empty_algorithm(ir::Collective::AllToAll, 2, 2 * sends, proto);
  for (int r = 0; r < 2; ++r) {
    auto& tb = add_tb(algo, r, 1 - r, 1 - r);
    for (int k = 0; k < sends; ++k) tb.steps.push_back(step(OpType::Send, BufferKind::Input, (1 - r) * sends + k, BufferKind::Output, r * sends + k));
    for (int k = 0; k < sends; ++k) tb.steps.push_back(step(OpType::Recv, BufferKind::Input, -1, BufferKind::Output, (1 - r) * sends + k));
    for (int k = 0; k < sends; ++k) tb.steps.push_back(step(OpType::Copy, BufferKind::Input, r * sends + k, BufferKind::Output, r * sends + k));
  }
  return algo;
}

TEST(HostBackend, BoundedSlotsBlockSendersLikeTheGpuProtocols) {
  const CallSpec call{ir::Collective::AllToAll, 3 * 1000, DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, 2);
  EXPECT_NO_THROW(make_host_backend(ExecOptions{std::chrono::milliseconds(200)})->run(send_ahead(3, ir::Protocol::LL), call, buffers, 1));
  const auto out = output_of(call, buffers[0], 2, 0);
  for (std::size_t i = 0; i < 3000; ++i) ASSERT_EQ(out[3000 + i], static_cast<float>(1000 + static_cast<int>(i % 97)));  // rank 1's first half
  EXPECT_THROW(make_host_backend(ExecOptions{std::chrono::milliseconds(200)})->run(send_ahead(3, ir::Protocol::Simple), call, buffers, 1),
               DiagError);
}

TEST(HostBackend, MismatchedTransferSizesAreReported) {
  // Rank 0 sends 2 chunks in one step; rank 1 receives them as two 1-chunk steps. Chunks of 4 floats fit
  // one tile together, so the send is one 32-byte primitive.
  ir::Algorithm algo = empty_algorithm(ir::Collective::AllReduce, 2, 2, ir::Protocol::LL);
  add_tb(algo, 0, 1, -1).steps.push_back(step(OpType::Send, BufferKind::Input, 0, BufferKind::Output, 0, 2));
  auto& rx = add_tb(algo, 1, -1, 0);
  rx.steps.push_back(step(OpType::Recv, BufferKind::Input, -1, BufferKind::Output, 0));
  rx.steps.back().line = 17;
  rx.steps.push_back(step(OpType::Recv, BufferKind::Input, -1, BufferKind::Output, 1));
  const CallSpec call{ir::Collective::AllReduce, 8, DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, 2);
  try {
    make_host_backend()->run(algo, call, buffers, 1);
    FAIL() << "expected a size mismatch";
  } catch (const DiagError& e) {
    EXPECT_STREQ(e.what(), "test.xml:17: rank 1 tb 0 step 0 expects 16 bytes but rank 0 sent 32 "
                           "(the k-th send and k-th receive of a connection must carry the same cnt)");
  }
}

TEST(HostBackend, StructuralErrorsNameTheLine) {
  ir::Algorithm algo = ring_allreduce(2);
  algo.gpus[1].tbs[0].steps[1].src_off = 5;
  algo.gpus[1].tbs[0].steps[1].line = 23;
  const CallSpec call{ir::Collective::AllReduce, 8, DataType::Float, RedOp::Sum};
  auto buffers = make_buffers(call, 2);
  try {
    make_host_backend()->run(algo, call, buffers, 1);
    FAIL() << "expected an out-of-bounds step";
  } catch (const DiagError& e) {
    EXPECT_STREQ(e.what(), "test.xml:23: rank 1 tb 0 step 1: chunks [5, 6) of buffer 'o' lie outside its 2 chunks "
                           "(fix the offset/cnt or the gpu's chunk counts)");
  }
}

TEST(HostBackend, RejectsSizesTheChunkingDoesNotDivide) {
  const ir::Algorithm algo = ring_allreduce(3);
  const CallSpec call{ir::Collective::AllReduce, 10, DataType::Float, RedOp::Sum};
  EXPECT_EQ(why_not_runnable(algo, call), "10 elements do not split into 3 chunks");
  auto buffers = make_buffers(call, 3);
  EXPECT_THROW(make_host_backend()->run(algo, call, buffers, 1), DiagError);
}

TEST(BufferLayout, InPlaceAliasesFollowTheExecutor) {
  const CallSpec ag{ir::Collective::AllGather, 4, DataType::Half, RedOp::Sum, true};
  const BufferLayout l = buffer_layout(ag, 8, 3);
  EXPECT_EQ(l.inplace_elems, 32u);
  EXPECT_EQ(l.inplace_send_offset, 12u);
  EXPECT_EQ(l.inplace_recv_offset, 0u);
  const CallSpec rs{ir::Collective::ReduceScatter, 4, DataType::Half, RedOp::Sum, true};
  const BufferLayout m = buffer_layout(rs, 8, 3);
  EXPECT_EQ(m.send_elems, 32u);
  EXPECT_EQ(m.inplace_recv_offset, 12u);
}

}  // namespace
}  // namespace ccforge::executor
