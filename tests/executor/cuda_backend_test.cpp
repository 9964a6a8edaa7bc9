// The cuda backend against the host backend (the oracle) on the same algorithms and inputs: results
// must agree bit for bit, since both reduce in the algorithm's order with the same rounding. Skips
// with the reason when the build has no CUDA backend or no GPU is visible.
#include <chrono>
#include <cstdlib>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "algorithms.hpp"
#include "buffers.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/executor/executor.hpp"

namespace ccforge::executor {
namespace {

#define SKIP_WITHOUT_GPU()                                                              \
  if (auto reason = cuda_unavailable_reason()) GTEST_SKIP() << "cuda backend: " << *reason

class CudaRingAllReduce : public ::testing::TestWithParam<std::tuple<int, ir::Protocol, std::size_t, bool>> {};

TEST_P(CudaRingAllReduce, MatchesTheHostBackendBitForBit) {
  SKIP_WITHOUT_GPU();
  const auto [n, proto, chunk_elems, inplace] = GetParam();
  ir::Algorithm algo = testing::ring_allreduce(n, proto);
  algo.inplace = inplace;
  const CallSpec call{ir::Collective::AllReduce, chunk_elems * static_cast<std::size_t>(n), DataType::Float, RedOp::Sum, inplace};
  auto on_gpu = testing::make_buffers(call, n);
  auto on_host = on_gpu;
  make_cuda_backend()->run(algo, call, on_gpu, 3);
  make_host_backend()->run(algo, call, on_host, 3);
  for (int r = 0; r < n; ++r) ASSERT_EQ(on_gpu[static_cast<std::size_t>(r)].recv, on_host[static_cast<std::size_t>(r)].recv) << "rank " << r;
}

// n = 8 puts several ranks on one GPU when fewer GPUs are present; 300,000 floats per chunk is
// 1.2 MB: 37 LL tiles, 3 LL128 tiles and one Simple tile; 5 floats per chunk exercises the partial
// 8-byte word.
INSTANTIATE_TEST_SUITE_P(Sizes, CudaRingAllReduce,
                         ::testing::Combine(::testing::Values(2, 8), ::testing::Values(ir::Protocol::Simple, ir::Protocol::LL, ir::Protocol::LL128),
                                            ::testing::Values(std::size_t{5}, std::size_t{300000}), ::testing::Bool()));

// ncclAvg: the division kernel after each call gives the host backend's result, in and out of place.
TEST(CudaBackend, AverageMatchesTheHostBackend) {
  SKIP_WITHOUT_GPU();
  for (const bool inplace : {false, true}) {
    ir::Algorithm algo = testing::ring_allreduce(3, ir::Protocol::Simple);
    algo.inplace = inplace;
    const CallSpec call{ir::Collective::AllReduce, 3 * 1000, DataType::Float, RedOp::Avg, inplace};
    auto on_gpu = testing::make_buffers(call, 3);
    auto on_host = on_gpu;
    make_cuda_backend()->run(algo, call, on_gpu, 2);
    make_host_backend()->run(algo, call, on_host, 2);
    for (int r = 0; r < 3; ++r) ASSERT_EQ(on_gpu[static_cast<std::size_t>(r)].recv, on_host[static_cast<std::size_t>(r)].recv) << "rank " << r;
  }
}

// 8 ranks x 40 channels: 320 threadblocks on a one-GPU machine, more than fit there at 640 threads
// each (132 on an H200), so the launch must shrink its blocks; on 8 GPUs each runs 40.
TEST(CudaBackend, RunsMoreThreadblocksThanFitAtFullBlockSize) {
  SKIP_WITHOUT_GPU();
  constexpr int kRanks = 8, kChannels = 40;
  const ir::Algorithm algo = testing::ring_allreduce(kRanks, ir::Protocol::Simple, kChannels);
  const CallSpec call{ir::Collective::AllReduce, std::size_t{kRanks} * kChannels * 1000, DataType::Float, RedOp::Sum, false};
  auto on_gpu = testing::make_buffers(call, kRanks);
  auto on_host = on_gpu;
  make_cuda_backend()->run(algo, call, on_gpu, 2);
  make_host_backend()->run(algo, call, on_host, 2);
  for (int r = 0; r < kRanks; ++r) ASSERT_EQ(on_gpu[static_cast<std::size_t>(r)].recv, on_host[static_cast<std::size_t>(r)].recv) << "rank " << r;
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

// The narrow data path (8-byte words, one in flight) and a capped block size, which the GPU bench times
// against the default, give the host backend's bits too; 1001 floats per chunk leave a partial pack.
TEST(CudaBackend, NarrowPathAndSmallBlocksMatchTheHostBackend) {
  SKIP_WITHOUT_GPU();
  const ScopedEnv path("CCFORGE_CUDA_DATA_PATH", "narrow"), threads("CCFORGE_CUDA_MAX_THREADS", "96");
  for (const ir::Protocol proto : {ir::Protocol::Simple, ir::Protocol::LL}) {
    const ir::Algorithm algo = testing::ring_allreduce(3, proto);
    const CallSpec call{ir::Collective::AllReduce, 3 * 1001, DataType::Float, RedOp::Sum};
    auto on_gpu = testing::make_buffers(call, 3);
    auto on_host = on_gpu;
    make_cuda_backend()->run(algo, call, on_gpu, 2);
    make_host_backend()->run(algo, call, on_host, 2);
    for (int r = 0; r < 3; ++r) ASSERT_EQ(on_gpu[static_cast<std::size_t>(r)].recv, on_host[static_cast<std::size_t>(r)].recv) << "rank " << r;
  }
}

TEST(CudaBackend, UnknownLaunchShapeIsAnError) {
  SKIP_WITHOUT_GPU();
  const ScopedEnv threads("CCFORGE_CUDA_MAX_THREADS", "100");
  EXPECT_THROW(make_cuda_backend(), DiagError);
}

TEST(CudaBackend, DeadlockBecomesAnErrorNotAHang) {
  SKIP_WITHOUT_GPU();
  ir::Algorithm algo = testing::empty_algorithm(ir::Collective::AllReduce, 2, 1, ir::Protocol::Simple);
  for (int r = 0; r < 2; ++r) {
    auto& tb = testing::add_tb(algo, r, 1 - r, 1 - r);
    tb.steps.push_back(testing::step(ir::OpType::Recv, ir::BufferKind::Input, -1, ir::BufferKind::Output, 0));
    tb.steps.push_back(testing::step(ir::OpType::Send, ir::BufferKind::Input, 0, ir::BufferKind::Output, 0));
  }
  const CallSpec call{ir::Collective::AllReduce, 64, DataType::Float, RedOp::Sum};
  auto buffers = testing::make_buffers(call, 2);
  try {
    make_cuda_backend(ExecOptions{std::chrono::milliseconds(500)})->run(algo, call, buffers, 1);
    FAIL() << "expected the GPU watchdog to fire";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("deadlock: GPU watchdog fired"));
  }
}

TEST(CudaBackend, ReportsWhyItIsUnavailable) {
  if (!cuda_unavailable_reason()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW(make_cuda_backend(), DiagError);
}

}  // namespace
}  // namespace ccforge::executor
