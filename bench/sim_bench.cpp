// Simulator speed: events per second and wall time per simulated collective.
#include <benchmark/benchmark.h>

#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace {

using namespace ccforge;

const topo::Topology& load(const char* name) {
  static const topo::Topology ndv5 = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  static const topo::Topology x128 =
      topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x128.xml");
  return std::string(name) == "ndv5" ? ndv5 : x128;
}

void run_nccl(benchmark::State& state, const topo::Topology& topo, const char* spec, ByteCount bytes,
              ir::Collective coll = ir::Collective::AllReduce) {
  const sim::SimParams params;
  const sim::CallSpec call{bytes, DataType::Half};
  const auto request = *sim::parse_nccl_request(spec);
  std::uint64_t events = 0;
  double simulated_us = 0;
  for (auto _ : state) {
    const sim::SimResult r = sim::simulate_nccl(topo, coll, call, request, params);
    events += r.events;
    simulated_us = r.time.us();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["simulated_us"] = simulated_us;
}

// 8x H100 ring allreduce, 1 GB, Simple: the events/s figure comes from this run too.
void BM_Ndv5RingAllreduce1G(benchmark::State& state) {
  run_nccl(state, load("ndv5"), "nccl:ring:simple", ByteCount{1} << 30);
}
BENCHMARK(BM_Ndv5RingAllreduce1G)->Unit(benchmark::kMillisecond);

// NCCL's own choice (NVLS) for the same call.
void BM_Ndv5NcclAllreduce1G(benchmark::State& state) { run_nccl(state, load("ndv5"), "nccl", ByteCount{1} << 30); }
BENCHMARK(BM_Ndv5NcclAllreduce1G)->Unit(benchmark::kMillisecond);

// An MSCCL file as `ccforge tune` runs candidates: the 48-threadblock LL ring allreduce at 1 GB (1024
// tile iterations per chunk, added in closed form once the run repeats; periodic_test.cpp).
void BM_Ndv5MscclRingLLAllreduce1G(benchmark::State& state) {
  const ir::Algorithm algo =
      ir::read_msccl_xml(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/msccl/msccl_ndv4_r48ll.xml");
  const sim::SimParams params;
  const sim::CallSpec call{ByteCount{1} << 30, DataType::Half};
  std::uint64_t events = 0;
  double simulated_us = 0;
  for (auto _ : state) {
    const sim::SimResult r = sim::simulate(load("ndv5"), algo, call, params);
    events += r.events;
    simulated_us = r.time.us();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["simulated_us"] = simulated_us;
}
BENCHMARK(BM_Ndv5MscclRingLLAllreduce1G)->Unit(benchmark::kMillisecond);

// 1024 GPUs: NCCL baseline allreduce at state.range(0) bytes (256 MB: the LL128 tree, 59 chunks per
// channel since its chunk halves with the node count as NCCL's does; 512 MB and 1 GB: the Simple tree,
// where re-solving the whole tree at every event used to cost 37 s and over 100 s).
void BM_Ndv5x128NcclAllreduce(benchmark::State& state) {
  run_nccl(state, load("x128"), "nccl", static_cast<ByteCount>(state.range(0)));
}
BENCHMARK(BM_Ndv5x128NcclAllreduce)->Arg(1 << 20)->Arg(256 << 20)->Arg(512 << 20)->Arg(1 << 30)->Unit(benchmark::kMillisecond)->Iterations(1);

// 1024 GPUs: NCCL's ring forced (allgather 4 MB: LL, one chunk; allreduce 1 GB: Simple, many chunks), run
// per block of a leaf's 32 nodes (ring_folding.hpp).
void BM_Ndv5x128NcclRingAllgather4M(benchmark::State& state) {
  run_nccl(state, load("x128"), "nccl:ring", ByteCount{4} << 20, ir::Collective::AllGather);
}
BENCHMARK(BM_Ndv5x128NcclRingAllgather4M)->Unit(benchmark::kMillisecond)->Iterations(1);
void BM_Ndv5x128NcclRingSimpleAllreduce1G(benchmark::State& state) {
  run_nccl(state, load("x128"), "nccl:ring:simple", ByteCount{1} << 30);
}
BENCHMARK(BM_Ndv5x128NcclRingSimpleAllreduce1G)->Unit(benchmark::kMillisecond)->Iterations(1);

// 1024 GPUs: NCCL's alltoall, a million concurrent p2p flows (a thousand per NIC): flows leaving links.
void BM_Ndv5x128NcclAlltoall(benchmark::State& state) {
  run_nccl(state, load("x128"), "nccl", static_cast<ByteCount>(state.range(0)), ir::Collective::AllToAll);
}
BENCHMARK(BM_Ndv5x128NcclAlltoall)->Arg(64 << 10)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
