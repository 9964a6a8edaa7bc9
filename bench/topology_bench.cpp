// Speed targets of the topology part (see topology/README.md, Validation):
//   LoadNdv5X128 + SummarizeNdv5X128 < 1 s together (`ccforge topo show data/topologies/ndv5-x128.xml`);
//   FirstRouteNdv5X128: one route from a source not asked before (its Dijkstra tree, then the route);
//   RouteRowNdv5X128: one source's 1024 routes (one tree, 1024 routes traced and kept).
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
    const auto topology = ccforge::topo::load_topology(bundled("ndv5-x128.xml"));  // fresh, so no cached routes
    state.ResumeTiming();
    benchmark::DoNotOptimize(ccforge::topo::summarize(topology));
  }
}
BENCHMARK(SummarizeNdv5X128)->Unit(benchmark::kMillisecond);

// Routes from a fresh topology's source `src` to the first `destinations` GPUs, a new source each time.
void routes_from_fresh_sources(benchmark::State& state, int destinations) {
  int src = 1;
  for (auto _ : state) {
    state.PauseTiming();
    const auto topology = ccforge::topo::load_topology(bundled("ndv5-x128.xml"));
    state.ResumeTiming();
    for (int dst = 0; dst < destinations; ++dst) benchmark::DoNotOptimize(topology.route(src, dst));
    src = src % 1023 + 1;
  }
}

void FirstRouteNdv5X128(benchmark::State& state) { routes_from_fresh_sources(state, 1); }
BENCHMARK(FirstRouteNdv5X128)->Unit(benchmark::kMillisecond);

void RouteRowNdv5X128(benchmark::State& state) { routes_from_fresh_sources(state, 1024); }
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
