// A rank count the runtime cannot load (MAX_SUBS <gpu> elements) rejects a grid point before anything
// is generated, with the reason a built program of it would get.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "ccforge/ir/runtime.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "generators.hpp"
#include "source_dir.hpp"
#include "tune/runtime_fit.hpp"

namespace ccforge::search {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::atomic<int> generated{0};

ir::Algorithm counted_rd_generate(const GenRequest& req) {
  ++generated;
  return rd_generate(req);
}

const GeneratorInfo counted_rd{"rd", "rd, counting its builds", "test", {ir::Collective::AllReduce}, &rd_supports,
                               &counted_rd_generate, {}, {}};

GenRequest allreduce(int ngpus) {
  GenRequest req;
  req.collective = ir::Collective::AllReduce;
  req.ngpus = ngpus;
  return req;
}

TEST(RankCount, IrRuleDecidesOnTheRankCountAlone) {
  const ir::RuntimeTarget& nccl = ir::runtime_target(ir::Runtime::MscclNccl);
  EXPECT_FALSE(ir::rank_count_misfit(nccl, nccl.max_ranks).has_value());
  ASSERT_TRUE(ir::rank_count_misfit(nccl, nccl.max_ranks + 1).has_value());
  EXPECT_THAT(*ir::rank_count_misfit(nccl, 16384), HasSubstr("ngpus=16384 exceeds the 1024 <gpu> elements"));
}

TEST(RankCount, APointBeyondTheRuntimesRanksIsUnfitWithoutBeingGenerated) {
  const DeployTarget target;  // msccl-nccl
  generated = 0;
  const Proven p = build_proven(counted_rd, allreduce(2048), target);
  EXPECT_EQ(generated, 0);
  EXPECT_FALSE(p.algorithm.has_value());
  EXPECT_TRUE(p.unfit);
  EXPECT_EQ(p.name, "rd_c1_i1_k1_Simple");
  // The reason is the first issue the built program gets from the runtime's rules.
  const std::optional<std::string> built = runtime_misfit(rd_generate(allreduce(2048)), target);
  ASSERT_TRUE(built.has_value());
  EXPECT_THAT(*built, StartsWith(p.why_not));
  EXPECT_THAT(p.why_not, HasSubstr("runtime msccl-nccl: runtime.ranks: ngpus=2048"));
}

TEST(RankCount, APointWithinTheRuntimesRanksIsGeneratedAndAnUnsupportedOneKeepsItsReason) {
  generated = 0;
  const Proven within = build_proven(counted_rd, allreduce(1024), DeployTarget{});
  EXPECT_EQ(generated, 1);
  EXPECT_THAT(within.why_not, ::testing::Not(HasSubstr("runtime.ranks")));
  const Proven odd = build_proven(counted_rd, allreduce(2049), DeployTarget{});
  EXPECT_EQ(generated, 1);
  EXPECT_FALSE(odd.unfit);
  EXPECT_THAT(odd.why_not, ::testing::Not(HasSubstr("runtime")));  // rd's own reason: not a power of two
}

// 129 ndv5 nodes (1032 GPUs): one node past what MSCCL loads, every point is refused before it is built.
TEST(RankCount, AClusterPastTheRuntimesRanksHasNoCandidateAndBuildsNone) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("ccforge_rank_count_" + std::to_string(::getpid()) + ".xml");
  {
    std::ofstream out(file);
    out << "<cluster name=\"ndv5-x129\" nodes=\"129\" node=\"" << CCFORGE_SOURCE_DIR
        << "/data/topologies/ndv5.xml\" fabric=\"rail-optimized\" nic_speed_gbps=\"400\" switch_latency_us=\"0.13\" "
           "switch_ports=\"64\" oversubscription=\"1\"/>\n";
  }
  const topo::Topology topo = topo::load_topology(file.string());
  std::filesystem::remove(file);
  ASSERT_EQ(topo.num_gpus(), 1032);
  for (ir::Collective coll : {ir::Collective::AllReduce, ir::Collective::AllGather}) {
    const CandidateSet set = enumerate_candidates(topo, coll);
    EXPECT_TRUE(set.accepted.empty()) << ir::to_string(coll);
    std::size_t by_ranks = 0;
    for (const Rejection& r : set.rejected) {
      by_ranks += r.reason.starts_with("runtime msccl-nccl: runtime.ranks: ngpus=1032");
      EXPECT_THAT(r.reason, ::testing::Not(HasSubstr("screen"))) << r.name << " was built";
    }
    EXPECT_GT(by_ranks, 0u) << ir::to_string(coll);
  }
}

}  // namespace
}  // namespace ccforge::search
