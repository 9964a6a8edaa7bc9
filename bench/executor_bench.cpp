// Host backend: wall time of one collective call of the hand-built ring allreduce (tests/executor).
#include <benchmark/benchmark.h>

#include "algorithms.hpp"
#include "ccforge/executor/executor.hpp"

namespace {

using namespace ccforge;

void BM_HostRingAllReduce(benchmark::State& state) {
  const int ranks = 8;
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const ir::Algorithm algo = executor::testing::ring_allreduce(ranks, ir::Protocol::LL);
  const executor::CallSpec call{ir::Collective::AllReduce, bytes / 2, DataType::Half, executor::RedOp::Sum};
  std::vector<executor::RankBuffers> buffers(ranks);
  for (auto& b : buffers) {
    b.send.assign(bytes, std::byte{0});
    b.recv.assign(bytes, std::byte{0});
  }
  auto backend = executor::make_host_backend();
  for (auto _ : state) {
    const executor::Timing t = backend->run(algo, call, buffers, 1);
    state.SetIterationTime(t.avg_us * 1e-6);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_HostRingAllReduce)->Arg(64 << 10)->Arg(1 << 20)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
