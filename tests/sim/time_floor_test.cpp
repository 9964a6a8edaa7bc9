// sim::time_floor is a lower bound on sim::simulate: for a few generated NDv5 allreduce candidates
// (one per generator and protocol) from latency- to bandwidth-bound sizes, and a bound that is close
// enough to prune with where one cost dominates (an LL ring at 256 MB is held by the GPU's LL issue rate).
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

CallSpec half(ByteCount bytes) { return CallSpec{bytes, *data_type_from_string("half")}; }

// One candidate per (generator, protocol), in the tuner's order.
std::vector<search::Candidate> one_per_generator_and_protocol() {
  std::map<std::pair<std::string, ir::Protocol>, search::Candidate> picked;
  for (const search::Candidate& c : search::enumerate_candidates(ndv5(), ir::Collective::AllReduce).accepted)
    picked.try_emplace({c.generator, c.algorithm.protocol}, c);
  std::vector<search::Candidate> out;
  for (auto& [key, c] : picked) out.push_back(std::move(c));
  return out;
}

TEST(TimeFloor, NeverAboveTheSimulatedTime) {
  const SimParams params;
  const auto candidates = one_per_generator_and_protocol();
  ASSERT_GE(candidates.size(), 6u);
  for (const search::Candidate& c : candidates) {
    for (ByteCount bytes : {ByteCount{1} << 10, ByteCount{1} << 20, ByteCount{64} << 20}) {
      SimTime simulated;
      try {
        simulated = simulate(ndv5(), c.algorithm, half(bytes), params).time;
      } catch (const DiagError&) {
        continue;  // the size does not split into this candidate's chunks
      }
      const SimTime floor = time_floor(ndv5(), c.algorithm, half(bytes), params);
      EXPECT_LE(floor, simulated) << c.algorithm.name << " at " << bytes << " B";
      EXPECT_GT(floor, SimTime{0}) << c.algorithm.name;
    }
  }
}

TEST(TimeFloor, LlRingAtLargeSizesIsHeldByTheIssueRate) {
  const SimParams params;
  for (const search::Candidate& c : one_per_generator_and_protocol()) {
    if (c.generator != "ring" || c.algorithm.protocol != ir::Protocol::LL) continue;
    const CallSpec call = half(ByteCount{256} << 20);
    const SimTime floor = time_floor(ndv5(), c.algorithm, call, params);
    const SimTime simulated = simulate(ndv5(), c.algorithm, call, params).time;
    EXPECT_LE(floor, simulated);
    EXPECT_GE(floor.us(), 0.9 * simulated.us()) << c.algorithm.name << ": floor " << floor.us() << " us, simulated "
                                                 << simulated.us() << " us";
    return;
  }
  FAIL() << "no LL ring candidate";
}

TEST(TimeFloor, WrongGpuCountIsOneLineError) {
  ir::Algorithm algo;
  algo.name = "four";
  algo.ngpus = 4;
  algo.gpus.resize(4);
  EXPECT_THROW(time_floor(ndv5(), algo, half(1024), SimParams{}), DiagError);
}

}  // namespace
}  // namespace ccforge::sim
