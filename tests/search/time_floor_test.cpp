// sim::time_floors is a lower bound on sim::simulate: for a few generated NDv5 allreduce candidates
// (one per generator and protocol) from latency- to bandwidth-bound sizes, and a bound that is close
// enough to prune with where one cost dominates (an LL ring at 256 MB is held by the GPU's LL issue rate,
// a tree allreduce by the round trip each tile waits for).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

CallSpec half(ByteCount bytes) { return CallSpec{bytes, DataType::Half}; }

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
      const SimTime floor = time_floors(ndv5(), c.algorithm, {half(bytes)}, params).at(0);
      EXPECT_LE(floor, simulated) << c.algorithm.name << " at " << bytes << " B";
      EXPECT_GT(floor, SimTime{0}) << c.algorithm.name;
    }
  }
}

// At 256 MB the floor must hold and be within 10 % of the simulated time.
void expect_tight_at_256mb(const ir::Algorithm& algo) {
  const SimParams params;
  const CallSpec call = half(ByteCount{256} << 20);
  const SimTime floor = time_floors(ndv5(), algo, {call}, params).at(0);
  const SimTime simulated = simulate(ndv5(), algo, call, params).time;
  EXPECT_LE(floor, simulated);
  EXPECT_GE(floor.us(), 0.9 * simulated.us()) << algo.name << ": floor " << floor.us() << " us, simulated " << simulated.us() << " us";
  std::printf("%-24s at 256 MB: floor/simulated %.3f\n", algo.name.c_str(), floor.us() / simulated.us());
}

TEST(TimeFloor, LlRingAtLargeSizesIsHeldByTheIssueRate) {
  for (const search::Candidate& c : one_per_generator_and_protocol()) {
    if (c.generator != "ring" || c.algorithm.protocol != ir::Protocol::LL) continue;
    expect_tight_at_256mb(c.algorithm);
    return;
  }
  FAIL() << "no LL ring candidate";
}

// A tree's leaf cannot start a tile before its parent has sent back the previous one, which waited for
// the root's reduction of the leaf's own send: each tile pays the round trip, not just the leaf's own
// steps (before that term the floor was ~0.6 of the simulated time for trees and recursive doubling).
TEST(TimeFloor, TreesAndRecursiveDoublingPayTheirRoundTripEveryTile) {
  int checked = 0;
  for (const search::Candidate& c : one_per_generator_and_protocol()) {
    if ((c.generator != "dbtree" && c.generator != "rd") || c.algorithm.protocol != ir::Protocol::Simple) continue;
    expect_tight_at_256mb(c.algorithm);
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// Candidates of one collective and generator on `topo` with more than one instance.
std::vector<search::Candidate> multi_instance(const topo::Topology& topo, ir::Collective coll, const std::string& generator) {
  std::vector<search::Candidate> out;
  for (search::Candidate& c : search::enumerate_candidates(topo, coll).accepted)
    if (c.generator == generator && c.request.instances > 1) out.push_back(std::move(c));
  return out;
}

// A chain's last links carry data only after the pipeline filled up to them, and a multi-instance
// chain's identical tbs share each link: the floor charges the fill before a link's whole load (the
// first iteration's earliest flow of each tb, then the load still to pass at capacity). On NDv5 at
// 256 MB that lifts Simple chains over 4 or 8 rings from 0.68-0.74 to 0.75-0.81 of their simulation.
TEST(TimeFloor, MultiInstanceChainsPayTheirFillBeforeTheirSharedLinks) {
  const SimParams params;
  const CallSpec call = half(ByteCount{256} << 20);
  int checked = 0;
  for (const ir::Collective coll : {ir::Collective::Broadcast, ir::Collective::Reduce})
    for (const search::Candidate& c : multi_instance(ndv5(), coll, "chain")) {
      if (c.algorithm.protocol != ir::Protocol::Simple || c.request.channels < 4) continue;
      const SimTime floor = time_floors(ndv5(), c.algorithm, {call}, params).at(0);
      const SimTime simulated = simulate(ndv5(), c.algorithm, call, params).time;
      EXPECT_LE(floor, simulated) << c.algorithm.name;
      EXPECT_GE(floor.us(), 0.745 * simulated.us()) << c.algorithm.name << ": floor " << floor.us() << " us, simulated " << simulated.us() << " us";
      ++checked;
    }
  EXPECT_EQ(checked, 12);
}

// The same term across 16 nodes, where the fill is most of an LL chain's time: still below the
// simulation (there the tb's own chain from its first-iteration start binds: 0.88-0.93 at 8 MB).
TEST(TimeFloor, ChainsAcrossSixteenNodesStayBelowTheirSimulation) {
  static const topo::Topology x16 = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x16.xml");
  const SimParams params;
  const CallSpec call = half(ByteCount{8} << 20);
  int checked = 0;
  for (const search::Candidate& c : multi_instance(x16, ir::Collective::Broadcast, "chain")) {
    if (c.request.chunks != 1) continue;
    const SimTime floor = time_floors(x16, c.algorithm, {call}, params).at(0);
    const SimTime simulated = simulate(x16, c.algorithm, call, params).time;
    EXPECT_LE(floor, simulated) << c.algorithm.name;
    std::printf("%-24s ndv5-x16 at 8 MB: floor/simulated %.3f\n", c.algorithm.name.c_str(), floor.us() / simulated.us());
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

// The tuner asks for all sizes at once; each answer is the one asked alone (the first iteration of a
// full tile is computed once and reused).
TEST(TimeFloor, ManyCallsAnswerAsOneCallEach) {
  const SimParams params;
  std::vector<CallSpec> calls;
  for (ByteCount bytes = 1024; bytes <= (ByteCount{1} << 30); bytes *= 4) calls.push_back(half(bytes));
  for (const search::Candidate& c : one_per_generator_and_protocol()) {
    const std::vector<SimTime> all = time_floors(ndv5(), c.algorithm, calls, params);
    ASSERT_EQ(all.size(), calls.size());
    for (std::size_t k = 0; k < calls.size(); ++k)
      EXPECT_EQ(all[k], time_floors(ndv5(), c.algorithm, {calls[k]}, params).at(0)) << c.algorithm.name << " " << k;
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end())) << c.algorithm.name;  // more bytes never cost less
  }
}

TEST(TimeFloor, WrongGpuCountIsOneLineError) {
  ir::Algorithm algo;
  algo.name = "four";
  algo.ngpus = 4;
  algo.gpus.resize(4);
  EXPECT_THROW(time_floors(ndv5(), algo, {half(1024)}, SimParams{}), DiagError);
}

}  // namespace
}  // namespace ccforge::sim
