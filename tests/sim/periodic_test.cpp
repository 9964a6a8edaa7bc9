// The closed form for repeated tile iterations (period_detector.hpp, run_extrapolated) against the full
// step-by-step simulation: hand-built graphs whose period the comments derive, and every real MSCCL file
// at sizes with many iterations and a partial last tile (generated candidates:
// periodic_candidates_test.cpp). The closed form claims bit-exact agreement (times are integer
// picoseconds), so the tests demand equality.
#include <cstdio>
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "ccforge/sim/sim.hpp"
#include "engine.hpp"
#include "periodic_agreement.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

using periodic_testing::Agreement;
using periodic_testing::expect_agreement;
using periodic_testing::size_with_partial_tile;

const std::string kRoot = CCFORGE_SOURCE_DIR;

const topo::Topology& topology(const std::string& name) {
  static const topo::Topology ndv5 = topo::load_topology(kRoot + "/data/topologies/ndv5.xml");
  static const topo::Topology ndv4 = topo::load_topology(kRoot + "/data/topologies/ndv4.xml");
  return name == "ndv4" ? ndv4 : ndv5;
}

// A producer tb and a consumer tb per block: the producer sends `bytes` over link 0 (1 GB/s) after a
// 1 us alpha, the consumer forwards them over link 1 (0.5 GB/s) once the producer's send of the same
// block is through. The producer's send of block b waits for the consumer's forward of block
// b - `credits` (buffer slots), so at most `credits` blocks are in flight between them. Block `count - 1`
// carries `last_bytes`. Built block by block; `extra` may add edges before the graph is folded into a
// loop (when `loop`; a run of it then looks for a period).
TaskGraph producer_consumer(std::uint32_t count, double bytes, double last_bytes, bool loop, std::uint32_t credits = 1,
                            const std::function<void(TaskGraph&)>& extra = {}) {
  TaskGraph g;
  const PathId up = g.add_path({0});
  const PathId down = g.add_path({1});
  for (std::uint32_t b = 0; b < count; ++b) {
    const double payload = b + 1 == count ? last_bytes : bytes;
    Task send;
    send.delay = SimTime::from_us(1);
    send.wire_bytes = payload;
    send.path = up;
    Task forward = send;
    forward.path = down;
    const TaskId s = g.add(send);
    const TaskId f = g.add(forward);
    g.depend(s, f);
    if (b > 0) {
      g.depend(s - 2, s);  // the producer's own order
      g.depend(f - 2, f);  // the consumer's own order
    }
    if (b >= credits) g.depend(f - 2 * credits, s);  // credit: block b - credits has left the consumer
  }
  if (extra) extra(g);
  if (loop && g.fold_into_loop(count, count)) g.set_run(count, true);
  return g;
}

const EngineLinks kTwoLinks{{1e9, 0.5e9}, {}};

TEST(Periodic, ChainBecomesPeriodicWithTheSlowStagesPeriod) {
  // 1 MB blocks: a send takes 1 us + 1000 us, a forward 1 us + 2000 us. In steady state the producer
  // waits for the consumer's credit, so each block costs the slow stage's 2001 us plus the producer's
  // 1001 us that cannot overlap the credit wait: the cycle s(b) -> f(b) -> s(b+1) is 3002 us.
  const EngineStats s = run_task_graph(producer_consumer(12, 1e6, 1e6, true), kTwoLinks, nullptr);
  ASSERT_TRUE(s.period.has_value());
  EXPECT_EQ(s.period->length, SimTime::from_us(3002));
}

TEST(Periodic, ExtrapolatedEqualsFullRunWithPartialLastBlock) {
  for (const std::uint64_t blocks : {9u, 40u, 1000u}) {
    auto run = [&](std::uint64_t n) {
      return run_task_graph(producer_consumer(static_cast<std::uint32_t>(n), 1e6, 3.5e5, n < blocks), kTwoLinks,
                            nullptr);
    };
    const EngineStats closed = run_extrapolated(blocks, true, run);
    const EngineStats full = run_extrapolated(blocks, false, run);
    EXPECT_EQ(closed.makespan, full.makespan) << blocks;
    EXPECT_GT(closed.blocks_extrapolated, 0u) << blocks;
    EXPECT_LT(closed.events, full.events) << blocks;
  }
}

TEST(Periodic, BlocksThatAreNotCopiesDoNotFoldIntoALoop) {
  EXPECT_TRUE(producer_consumer(12, 1e6, 1e6, true).is_loop());
  // Block 5 gets an extra edge: the blocks are not copies, so the graph stays as built and no period
  // is looked for.
  TaskGraph g = producer_consumer(12, 1e6, 1e6, true, 1, [](TaskGraph& x) { x.depend(2 * 5, 2 * 5 + 1); });
  EXPECT_FALSE(g.is_loop());
  EXPECT_EQ(g.size(), 24u);
  EXPECT_FALSE(run_task_graph(g, kTwoLinks, nullptr).period.has_value());
  // An edge reaching two blocks back into some blocks only breaks it too.
  TaskGraph far = producer_consumer(12, 1e6, 1e6, true, 1, [](TaskGraph& x) {
    for (TaskId b = 6; b < 12; ++b) x.depend(2 * (b - 2), 2 * b);
  });
  EXPECT_FALSE(far.is_loop());
  // A middle block whose bytes differ breaks it; the last one's may.
  for (const int odd : {1, 3}) {
    TaskGraph chain;
    for (int b = 0; b < 4; ++b) {
      Task t;
      t.wire_bytes = b == odd ? 2.0 : 1.0;
      const TaskId id = chain.add(t);
      if (b > 0) chain.depend(id - 1, id);
    }
    EXPECT_EQ(chain.fold_into_loop(4, 4), odd == 3) << odd;
  }
}

TEST(Periodic, LoopStoresOneBlockAndRunsAsTheGraphItWasFoldedFrom) {
  // 3 credits: edges reach 3 blocks back, and blocks 0-2 lack some of them.
  const TaskGraph built = producer_consumer(40, 1e6, 3.5e5, false, 3);
  TaskGraph loop = producer_consumer(40, 1e6, 3.5e5, true, 3);
  ASSERT_TRUE(loop.is_loop());
  EXPECT_EQ(loop.tasks().size(), 2u);
  EXPECT_EQ(loop.reach(), 3u);
  loop.set_run(40, false);
  const EngineStats folded = run_task_graph(loop, kTwoLinks, nullptr);
  const EngineStats full = run_task_graph(TaskGraph(built), kTwoLinks, nullptr);
  EXPECT_EQ(folded.makespan, full.makespan);
  EXPECT_EQ(folded.events, full.events);
  EXPECT_FALSE(folded.period.has_value());  // a full run looks for none
  // The same loop, run longer than it was built.
  loop.set_run(1000, false);
  EXPECT_EQ(run_task_graph(loop, kTwoLinks, nullptr).makespan,
            run_task_graph(producer_consumer(1000, 1e6, 3.5e5, false, 3), kTwoLinks, nullptr).makespan);
}

TEST(Periodic, TryThatCannotProveAPeriodStopsEarly) {
  // No credits: the producer runs ahead and no cut repeats, so every try is given up once its last
  // block starts; the answer is the full run's.
  const std::uint64_t blocks = 1000;
  auto run = [&](std::uint64_t n) {
    return run_task_graph(producer_consumer(static_cast<std::uint32_t>(n), 1e6, 3.5e5, n < blocks, 100000), kTwoLinks,
                          nullptr);
  };
  const EngineStats first_try = run(8);
  EXPECT_TRUE(first_try.abandoned);
  EXPECT_FALSE(first_try.period.has_value());
  const EngineStats full = run_task_graph(producer_consumer(blocks, 1e6, 3.5e5, false, 100000), kTwoLinks, nullptr);
  EXPECT_FALSE(full.abandoned);  // nothing declared: a full run always runs to the end
  EXPECT_EQ(run_extrapolated(blocks, true, run).makespan, full.makespan);
}

TEST(Periodic, CreditsReachingSeveralBlocksBackStayExact) {
  // Two credits: the producer may run a block further ahead, so the cycle s(b) -> f(b) -> s(b+2) costs
  // 3002 us per two blocks and the consumer's 2001 us per block sets the period.
  const EngineStats two = run_task_graph(producer_consumer(16, 1e6, 1e6, true, 2), kTwoLinks, nullptr);
  ASSERT_TRUE(two.period.has_value());
  EXPECT_EQ(two.period->length, SimTime::from_us(2001));
  for (const std::uint32_t credits : {2u, 3u, 8u}) {
    for (const std::uint64_t blocks : {40u, 1000u}) {
      auto run = [&](std::uint64_t n) {
        return run_task_graph(producer_consumer(static_cast<std::uint32_t>(n), 1e6, 3.5e5, n < blocks, credits),
                              kTwoLinks, nullptr);
      };
      const EngineStats closed = run_extrapolated(blocks, true, run);
      const EngineStats full = run_extrapolated(blocks, false, run);
      EXPECT_EQ(closed.makespan, full.makespan) << credits << " credits, " << blocks;
      EXPECT_GT(closed.blocks_extrapolated, 0u) << credits << " credits, " << blocks;
    }
  }
}

TEST(Periodic, RealMscclFilesAgreeWithFullSimulation) {
  Agreement tally;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "/tests/data/msccl")) {
    if (entry.path().extension() != ".xml") continue;
    const ir::Algorithm algo = ir::read_msccl_xml(entry.path());
    const std::string topo_name = algo.collective == ir::Collective::AllToAll ? "ndv4" : "ndv5";
    if (algo.ngpus != topology(topo_name).num_gpus()) continue;
    for (const ByteCount tiles : {20u, 70u}) expect_agreement(topology(topo_name), algo, size_with_partial_tile(algo, tiles), tally);
  }
  EXPECT_GE(tally.compared, 20);
  // Most real files are periodic well before their last tile; a file that is not is simulated in full.
  EXPECT_GE(tally.extrapolated, tally.compared / 2) << tally.extrapolated << " of " << tally.compared;
  std::printf("real files: %d sizes compared, %d extrapolated\n", tally.compared, tally.extrapolated);
}

}  // namespace
}  // namespace ccforge::sim
