// compute_stats on algorithms whose numbers follow from their shape.
#include <gtest/gtest.h>

#include "ccforge/ir/ir.hpp"
#include "generators.hpp"
#include "source_dir.hpp"

namespace ccforge::ir {
namespace {

TEST(Stats, ChainBroadcastCriticalPathAndTraffic) {
  // Two chunks down 0 -> 1 -> 2 -> 3: s, s on rank 0; rcs, rcs on ranks 1 and 2; r, r on rank 3. The
  // second chunk's receive on rank 3 waits for 2 sends + 2 relays... : chain s0 -> s1 -> rcs1(1) ->
  // rcs1(2) -> r1(3) = 5 steps.
  const Algorithm a = testgen::chain_broadcast(4, 2);
  const AlgorithmStats s = compute_stats(a);
  EXPECT_EQ(s.critical_path_steps, 5);
  EXPECT_EQ(s.chunks_sent[0 * 4 + 1], 2);
  EXPECT_EQ(s.chunks_sent[1 * 4 + 2], 2);
  EXPECT_EQ(s.chunks_sent[2 * 4 + 3], 2);
  EXPECT_EQ(s.chunks_sent[3 * 4 + 0], 0);
  EXPECT_EQ(s.per_rank[0].steps, 4);  // 2 cpy + 2 s
  EXPECT_EQ(s.per_rank[3].steps, 2);
  EXPECT_EQ(s.total_steps, 10);
}

TEST(Stats, CountsNopsAndMaxStepsPerTb) {
  const Algorithm a = read_msccl_xml(std::filesystem::path(CCFORGE_SOURCE_DIR) / "tests/data/msccl/msccl_rccl_allreduce-1step-4n-ll-1pass.xml");
  const AlgorithmStats s = compute_stats(a);
  int nops = 0;
  for (const auto& r : s.per_rank) nops += r.nops;
  EXPECT_EQ(nops, 88);  // grep -c 'type="nop"'
  EXPECT_EQ(s.total_steps, 232);
  EXPECT_GT(s.critical_path_steps, 0);
}

TEST(Stats, DeadlockedAlgorithmHasNoCriticalPath) {
  const Algorithm a = read_msccl_xml(std::filesystem::path(CCFORGE_SOURCE_DIR) / "tests/ir/broken/dependency_cycle.xml");
  EXPECT_EQ(compute_stats(a).critical_path_steps, 0);
}

}  // namespace
}  // namespace ccforge::ir
