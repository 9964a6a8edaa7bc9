// Speed targets of the topology part (see topology/README.md, Validation):
//   LoadNdv5X128 + SummarizeNdv5X128 < 1 s together (`ccforge topo show data/topologies/ndv5-x128.xml`);
//   RouteRowNdv5X128: one source row of 1024 routes, the unit the simulator pays per rank.
#include "ccforge/topology/topology.hpp"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include "source_dir.hpp"

namespace {

std::filesystem::path bundled(const char* name) { return std::filesystem::path(CCFORGE_SOURCE_DIR) / "data/topologies" / name; }

void LoadNdv5X128(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ccforge::topo::load_topology(bundled("ndv5-x128.xml")));
}
BENCHMARK(LoadNdv5X128)->Unit(benchmark::kMillisecond);

void SummarizeNdv5X128(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    const auto topology = ccforge::topo::load_topology(bundled("ndv5-x128.xml"));  // fresh, so no cached rows
    state.ResumeTiming();
    benchmark::DoNotOptimize(ccforge::topo::summarize(topology));
  }
}
BENCHMARK(SummarizeNdv5X128)->Unit(benchmark::kMillisecond);

void RouteRowNdv5X128(benchmark::State& state) {
  int src = 1;
  for (auto _ : state) {
    state.PauseTiming();
    const auto topology = ccforge::topo::load_topology(bundled("ndv5-x128.xml"));
    state.ResumeTiming();
    benchmark::DoNotOptimize(topology.route(src, 0));
    src = src % 1023 + 1;
  }
}
BENCHMARK(RouteRowNdv5X128)->Unit(benchmark::kMillisecond);

void LoadNdv5X2048(benchmark::State& state) {
  const auto path = std::filesystem::temp_directory_path() / "ccforge-bench-ndv5-x2048.xml";
  {
    std::ofstream(path) << "<cluster nodes=\"2048\" node=\"" << bundled("ndv5.xml").string() << "\" fabric=\"rail-optimized\"/>\n";
  }
  for (auto _ : state) benchmark::DoNotOptimize(ccforge::topo::load_topology(path));
  std::filesystem::remove(path);
}
BENCHMARK(LoadNdv5X2048)->Unit(benchmark::kMillisecond);

}  // namespace
