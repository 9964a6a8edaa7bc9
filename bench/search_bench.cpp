// Search throughput: candidate generation + proof (ir::check) and tune simulations per second.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>

#include "ccforge/output/tune_outputs.hpp"
#include "ccforge/plot/selection_chart.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace {

using namespace ccforge;

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

const topo::Topology& ndv5_x16() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x16.xml");
  return t;
}

// The tune's sizes (1 KB-1 GB x2) as simulator calls.
std::vector<sim::CallSpec> tune_calls() {
  std::vector<sim::CallSpec> calls;
  for (ByteCount b = 1024; b <= (ByteCount{1} << 30); b *= 2) calls.push_back({b, DataType::Half});
  return calls;
}

// Every allreduce candidate on `topo`, built and proven: items/s = candidates per second.
void enumerate_allreduce(benchmark::State& state, const topo::Topology& topo) {
  std::size_t made = 0;
  for (auto _ : state) {
    const auto set = search::enumerate_candidates(topo, ir::Collective::AllReduce);
    made += set.accepted.size() + set.rejected.size();
    benchmark::DoNotOptimize(set);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(made));
}
void BM_EnumerateAllreduceCandidates(benchmark::State& state) { enumerate_allreduce(state, ndv5()); }
BENCHMARK(BM_EnumerateAllreduceCandidates)->Unit(benchmark::kMillisecond);

// One allreduce candidate of generator `name` on `ranks` ranks (8 per node), generated then proven by
// ir::check: how proving cost grows with the rank count (ndv5-x128 has 1024 ranks).
void prove_at_scale(benchmark::State& state, const char* name) {
  search::GenRequest req;
  req.collective = ir::Collective::AllReduce;
  req.ngpus = static_cast<int>(state.range(0));
  req.gpus_per_node = 8;
  for (auto _ : state) {
    const search::Generated g = search::try_generate(*search::find_generator(name), req);
    if (!g.algorithm) {
      state.SkipWithError(g.why_not.c_str());
      return;
    }
    benchmark::DoNotOptimize(ir::check(*g.algorithm).ok());
  }
}
// From 256 ranks rhd's halving step moves more than 71 chunks: screened before building (no proof).
void BM_ProveRhdAllreduce(benchmark::State& state) { prove_at_scale(state, "rhd"); }
BENCHMARK(BM_ProveRhdAllreduce)->RangeMultiplier(2)->Range(32, 128)->Unit(benchmark::kMillisecond);
void BM_ProveHierarchicalAllreduce(benchmark::State& state) { prove_at_scale(state, "hierarchical"); }
BENCHMARK(BM_ProveHierarchicalAllreduce)->RangeMultiplier(2)->Range(64, 256)->Unit(benchmark::kMillisecond);
void BM_ProveDbtreeAllreduce(benchmark::State& state) { prove_at_scale(state, "dbtree"); }
BENCHMARK(BM_ProveDbtreeAllreduce)->RangeMultiplier(2)->Range(64, 256)->Unit(benchmark::kMillisecond);

// The tune's candidates phase on 128 GPUs (real time: the points are built on every core).
void BM_X16AllreduceCandidates(benchmark::State& state) { enumerate_allreduce(state, ndv5_x16()); }
BENCHMARK(BM_X16AllreduceCandidates)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// The tune's floors phase on 128 GPUs: sim::time_floors of every accepted ndv5-x16 allreduce candidate
// at every tune size; items/s = candidates per second.
void BM_X16AllreduceFloors(benchmark::State& state) {
  static const search::CandidateSet set = search::enumerate_candidates(ndv5_x16(), ir::Collective::AllReduce);
  const std::vector<sim::CallSpec> calls = tune_calls();
  for (auto _ : state)
    for (const search::Candidate& c : set.accepted) benchmark::DoNotOptimize(sim::time_floors(ndv5_x16(), c.algorithm, calls, {}));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * set.accepted.size()));
}
BENCHMARK(BM_X16AllreduceFloors)->Unit(benchmark::kMillisecond)->Iterations(1);

// Items/s = candidate evaluations per second: (candidate or NCCL, size) pairs decided, by simulation or
// by pruning on floors, the number the full-tune targets scale with. Counters split the two, and give
// each phase's CPU seconds per tune (report.json timing.phases: candidates, floors, simulations, ...).
void run_tune(benchmark::State& state, const search::TuneOptions& o) {
  std::size_t sims = 0, pruned = 0;
  std::map<std::string, double> phase_cpu_s;
  for (auto _ : state) {
    const search::TuneResult r = search::tune(ndv5(), o, sim::SimParams{});
    output::write_tune_outputs(search::tune_report(r, o), plot::write_selection_plots);  // as ccforge tune does
    sims += r.simulations;
    pruned += r.pruned;
    for (const search::PhaseTime& p : r.phases) phase_cpu_s[p.name] += p.cpu_s;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(sims + pruned));
  state.counters["simulated"] = benchmark::Counter(static_cast<double>(sims), benchmark::Counter::kAvgIterations);
  state.counters["pruned"] = benchmark::Counter(static_cast<double>(pruned), benchmark::Counter::kAvgIterations);
  for (const auto& [phase, cpu_s] : phase_cpu_s)
    state.counters[phase + "_cpu_s"] = benchmark::Counter(cpu_s, benchmark::Counter::kAvgIterations);
}

// A small tune (allreduce + allgather, 1 KB-1 MB x4).
void BM_TuneSmallSizes(benchmark::State& state) {
  search::TuneOptions o;
  o.collectives = {ir::Collective::AllReduce, ir::Collective::AllGather};
  o.sizes = {1024, 4096, 16384, 65536, 262144, 1048576};
  o.jobs = static_cast<int>(state.range(0));
  o.out_dir = std::filesystem::temp_directory_path() / "ccforge_search_bench";
  run_tune(state, o);
}
BENCHMARK(BM_TuneSmallSizes)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The sizes where the simulator's tile loop is long (allreduce, 64 MB-1 GB x4, one thread), where
// periodic iterations are added in closed form and sim::time_floors prunes most candidates.
void BM_TuneLargeSizes(benchmark::State& state) {
  search::TuneOptions o;
  o.collectives = {ir::Collective::AllReduce};
  o.sizes = {ByteCount{64} << 20, ByteCount{256} << 20, ByteCount{1} << 30};
  o.jobs = 1;
  o.out_dir = std::filesystem::temp_directory_path() / "ccforge_search_bench_large";
  run_tune(state, o);
}
BENCHMARK(BM_TuneLargeSizes)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
