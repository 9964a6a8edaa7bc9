// sim::time_floors <= sim::simulate for every candidate the tuner generates, for all 8 collectives on
// NDv5 (one node, 1 KB-1 GB) and NDv5 x2 (two nodes over the network, 1 KB-32 MB). Labelled slow
// (~2 min CPU): it simulates every candidate at every size, as a tune without pruning would;
// time_floor_test.cpp covers a few candidates in the sanitized suite. Prints how close the floor gets
// (mean floor/simulated 0.95-0.97 per collective on NDv5, 0.88-0.96 on two nodes: the pruning it allows),
// and per generator.
#include <cstdio>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const std::string kRoot = CCFORGE_SOURCE_DIR;

void expect_floor_below_simulation(const std::string& topology, const std::vector<ByteCount>& sizes) {
  const topo::Topology topo = topo::load_topology(kRoot + "/data/topologies/" + topology);
  const SimParams params;
  std::vector<CallSpec> calls;
  for (ByteCount bytes : sizes) calls.push_back({bytes, DataType::Half});
  for (const ir::Collective coll : {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::ReduceScatter,
                                    ir::Collective::AllToAll, ir::Collective::Broadcast, ir::Collective::Reduce,
                                    ir::Collective::Gather, ir::Collective::Scatter}) {
    int compared = 0;
    double tightest = 0.0, ratio_sum = 0.0;
    std::map<std::string, std::pair<int, double>> per_generator;  // comparisons, ratio sum
    for (const search::Candidate& c : search::enumerate_candidates(topo, coll).accepted) {
      const std::vector<SimTime> floors = time_floors(topo, c.algorithm, calls, params);  // as the tuner asks
      for (std::size_t k = 0; k < calls.size(); ++k) {
        const CallSpec& call = calls[k];
        const ByteCount bytes = call.bytes;
        SimTime simulated;
        try {
          simulated = simulate(topo, c.algorithm, call, params).time;
        } catch (const DiagError&) {
          continue;  // the size does not split into this candidate's chunks
        }
        const SimTime floor = floors[k];
        EXPECT_LE(floor, simulated) << topology << " " << c.algorithm.name << " at " << bytes << " B: floor "
                                    << floor.us() << " us, simulated " << simulated.us() << " us";
        const double ratio = floor.us() / simulated.us();
        tightest = std::max(tightest, ratio);
        ratio_sum += ratio;
        ++compared;
        auto& [n, sum] = per_generator[c.generator];
        ++n;
        sum += ratio;
      }
    }
    EXPECT_GT(compared, 0) << topology << " " << ir::to_string(coll);
    std::printf("%-10s %-14s %4d comparisons, floor/simulated mean %.2f, max %.4f\n", topology.c_str(),
                ir::to_string(coll), compared, compared ? ratio_sum / compared : 0.0, tightest);
    for (const auto& [generator, stats] : per_generator)
      std::printf("%-10s %-14s   %-18s %4d comparisons, floor/simulated mean %.2f\n", topology.c_str(), "",
                  generator.c_str(), stats.first, stats.second / stats.first);
  }
}

TEST(TimeFloor, EveryNdv5CandidateFrom1KTo1G) {
  expect_floor_below_simulation("ndv5.xml", {ByteCount{1} << 10, ByteCount{64} << 10, ByteCount{4} << 20,
                                             ByteCount{64} << 20, ByteCount{1} << 30});
}

TEST(TimeFloor, EveryTwoNodeCandidateFrom1KTo32M) {
  expect_floor_below_simulation("ndv5-x2.xml", {ByteCount{1} << 10, ByteCount{1} << 20, ByteCount{32} << 20});
}

}  // namespace
}  // namespace ccforge::sim
