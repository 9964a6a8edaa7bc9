// Every generator x every collective it lists x ranks 2..16 x protocols x small parameter grid either
// declines with a reason or produces an algorithm that the ir checker proves correct.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/core.h>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

using C = ir::Collective;

std::string first_issue(const ir::CheckReport& report) {
  if (report.ok()) return "";
  const auto& i = report.issues.front();
  return fmt::format("{} (rank {}, tb {}, step {}): {}", i.rule, i.rank, i.tb, i.step, i.message);
}

struct Params {
  int channels, instances, chunks, spread = 1;
};

// Trees for treepack on p ranks: a ring-shaped chain and a star per root, so that the generator has
// two trees per root to schedule without needing a topology.
std::vector<GenRequest::Tree> test_trees(int p) {
  std::vector<GenRequest::Tree> trees;
  for (int r = 0; r < p; ++r) {
    GenRequest::Tree chain{r, std::vector<int>(static_cast<std::size_t>(p), -1)};
    GenRequest::Tree star{r, std::vector<int>(static_cast<std::size_t>(p), r)};
    for (int x = 1; x < p; ++x) chain.parent[static_cast<std::size_t>((r + x) % p)] = (r + x - 1) % p;
    star.parent[static_cast<std::size_t>(r)] = -1;
    trees.push_back(chain);
    trees.push_back(star);
  }
  return trees;
}

class SearchGeneratorSweep : public ::testing::TestWithParam<std::string_view> {};

TEST_P(SearchGeneratorSweep, EveryProducedAlgorithmPassesTheChecker) {
  const GeneratorInfo* gen = find_generator(GetParam());
  ASSERT_NE(gen, nullptr);
  const Params grid[] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 3}, {2, 1, 1, 2}};
  const ir::Protocol protocols[] = {ir::Protocol::Simple, ir::Protocol::LL, ir::Protocol::LL128};
  for (C coll : gen->collectives) {
    int produced = 0;
    for (int p = 2; p <= 16; ++p)
      for (ir::Protocol proto : protocols)
        for (const Params& prm : grid) {
          GenRequest req;
          req.collective = coll;
          req.ngpus = p;
          req.gpus_per_node = p % 2 == 0 ? p / 2 : 0;
          req.protocol = proto;
          req.channels = prm.channels;
          req.instances = prm.instances;
          req.chunks = prm.chunks;
          req.spread = prm.spread;
          req.trees = test_trees(p);
          Generated g = try_generate(*gen, req);
          if (!g.algorithm) {
            EXPECT_FALSE(g.why_not.empty());
            continue;
          }
          ++produced;
          const ir::CheckReport report = ir::check(*g.algorithm);
          ASSERT_TRUE(report.ok()) << g.algorithm->name << " " << ir::to_string(coll) << " p=" << p << ": "
                                   << first_issue(report);
          EXPECT_EQ(g.algorithm->ngpus, p);
          EXPECT_EQ(g.algorithm->collective, coll);
          EXPECT_EQ(g.algorithm->protocol, proto);
        }
    EXPECT_GT(produced, 0) << gen->name << " never produced " << ir::to_string(coll);
  }
}

std::vector<std::string_view> all_names() {
  std::vector<std::string_view> names;
  for (const auto& g : generators()) names.push_back(g.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, SearchGeneratorSweep, ::testing::ValuesIn(all_names()),
                         [](const auto& info) { return std::string(info.param); });

TEST(SearchRegistry, CoversEveryCollectiveTheProductTunes) {
  for (C coll : {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll, C::Broadcast, C::Reduce, C::Gather, C::Scatter}) {
    int count = 0;
    for (const auto& g : generators())
      count += std::count(g.collectives.begin(), g.collectives.end(), coll) > 0;
    EXPECT_GT(count, 0) << ir::to_string(coll);
  }
}

TEST(SearchRegistry, NamesAreUniqueAndEntriesDocumented) {
  for (const auto& g : generators()) {
    EXPECT_EQ(find_generator(g.name), &g);
    EXPECT_FALSE(g.description.empty());
    EXPECT_FALSE(g.citation.empty());
  }
  EXPECT_EQ(find_generator("no_such_generator"), nullptr);
}

TEST(SearchSupport, PowerOfTwoGeneratorsDeclineOtherRankCounts) {
  GenRequest req;
  req.ngpus = 6;
  const Generated g = try_generate(*find_generator("rd"), req);
  EXPECT_FALSE(g.algorithm);
  EXPECT_NE(g.why_not.find("power-of-two"), std::string::npos);
}

TEST(SearchSupport, HierarchicalNeedsTwoNodes) {
  GenRequest req;
  req.ngpus = 8;
  req.gpus_per_node = 8;
  EXPECT_FALSE(try_generate(*find_generator("hierarchical"), req).algorithm);
}

TEST(SearchSupport, BuilderLimitsBecomeReasonsNotCrashes) {
  GenRequest req;
  req.ngpus = 16;
  req.chunks = 64;  // 15 hops x 16 segments x 64 pieces on one tb: far past 64 steps per tb
  const Generated g = try_generate(*find_generator("ring"), req);
  EXPECT_FALSE(g.algorithm);
  EXPECT_FALSE(g.why_not.empty());
}

// At 1024 ranks the halving step of rhd allreduce moves 512 chunks and hierarchical reduce-scatter
// sends 128 pieces per peer on one connection: refused from the pieces, before the builder spends
// seconds and gigabytes on programs the executor cannot load.
TEST(SearchSupport, PiecesOverTheExecutorLimitsAreRefusedBeforeBuilding) {
  GenRequest req;
  req.ngpus = 1024;
  req.gpus_per_node = 8;
  const Generated rhd = try_generate(*find_generator("rhd"), req);
  EXPECT_FALSE(rhd.algorithm);
  EXPECT_THAT(rhd.why_not, ::testing::AllOf(::testing::StartsWith("screen rhd_c1_i1_k1_Simple"),
                                            ::testing::HasSubstr("512 chunks in one step, more than MSCCL_MAX_COUNT-1=71")));
  req.collective = ir::Collective::ReduceScatter;
  const Generated hier = try_generate(*find_generator("hierarchical"), req);
  EXPECT_FALSE(hier.algorithm);
  EXPECT_THAT(hier.why_not, ::testing::HasSubstr("more than MSCCL_MAX_NUM_STEPS=64"));
}

TEST(SearchSupport, RingOrdersMustBePermutations) {
  GenRequest req;
  req.ngpus = 4;
  req.rings = {{0, 1, 1, 3}};
  EXPECT_FALSE(find_generator("ring")->supports(req).ok());
}

TEST(SearchNames, SayHowTheCandidateWasMade) {
  GenRequest req;
  req.ngpus = 8;
  req.channels = 2;
  req.instances = 4;
  req.protocol = ir::Protocol::LL128;
  const Generated g = try_generate(*find_generator("ring"), req);
  ASSERT_TRUE(g.algorithm) << g.why_not;
  EXPECT_EQ(g.algorithm->name, "ring_c2_i4_k1_LL128");
  EXPECT_EQ(g.algorithm->nchannels, 8);
}

// enumerate_candidates builds each grid point once, with Simple, and relabels it for LL and LL128:
// every accepted candidate must be exactly what its generator builds for its request.
TEST(SearchCandidates, ProtocolOnlyRelabelsTheSchedule) {
  for (const char* name : {"mi300x.xml", "dgx1-v100.xml"}) {
    const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name);
    for (C coll : {C::AllReduce, C::AllGather}) {
      int relabelled = 0;
      for (const Candidate& c : enumerate_candidates(t, coll).accepted) {
        if (c.request.protocol == ir::Protocol::Simple) continue;
        const Generated g = try_generate(*find_generator(c.generator), c.request);
        ASSERT_TRUE(g.algorithm) << c.name << ": " << g.why_not;
        EXPECT_EQ(ir::to_msccl_xml(c.algorithm), ir::to_msccl_xml(*g.algorithm)) << name << " " << c.name;
        ++relabelled;
      }
      EXPECT_GT(relabelled, 0) << name << " " << ir::to_string(coll);
    }
  }
}

// Direct exchanges give each direction of a peer pair its own tb, so no rank receives before it sends.
TEST(SearchDirect, PeerPairsSendAndReceiveOnSeparateThreadblocks) {
  for (C coll : {C::AllGather, C::AllReduce, C::AllToAll}) {
    GenRequest req;
    req.collective = coll;
    req.ngpus = 8;
    req.instances = 2;
    const Generated g = try_generate(*find_generator("direct"), req);
    ASSERT_TRUE(g.algorithm) << g.why_not;
    for (const ir::GpuProgram& gpu : g.algorithm->gpus)
      for (const ir::ThreadBlock& tb : gpu.tbs)
        EXPECT_TRUE(tb.send_peer < 0 || tb.recv_peer < 0) << ir::to_string(coll) << " rank " << gpu.rank << " tb " << tb.id;
  }
}

// Rank 0 talks to every peer on one channel with a tb each, so past 32 peers (the executor's tbs per
// channel and direction) direct and two-shot decline before building; at 33 ranks they still fit.
TEST(SearchDirect, DeclinesPastTheExecutorsThreadblocksPerChannel) {
  for (std::string_view name : {"direct", "twoshot"})
    for (C coll : find_generator(name)->collectives) {
      GenRequest req;
      req.collective = coll;
      req.ngpus = 34;
      const Support s = find_generator(name)->supports(req);
      EXPECT_FALSE(s.ok()) << name << " " << ir::to_string(coll);
      EXPECT_NE(s.why_not.find("33 peers on one channel"), std::string::npos) << s.why_not;
      req.ngpus = 33;
      const Generated g = try_generate(*find_generator(name), req);
      ASSERT_TRUE(g.algorithm) << name << " " << ir::to_string(coll) << ": " << g.why_not;
      EXPECT_TRUE(ir::check(*g.algorithm).ok()) << name << " " << ir::to_string(coll) << ": " << first_issue(ir::check(*g.algorithm));
    }
}

// chunks = k cuts the one-shot allreduce's reduction into k pieces reduced on k different tbs.
TEST(SearchDirect, OneShotAllreduceSpreadsItsReductionOverChunkLanes) {
  for (int k : {1, 4, 8}) {
    GenRequest req;
    req.ngpus = 8;
    req.chunks = k;
    req.protocol = ir::Protocol::LL;
    const Generated g = try_generate(*find_generator("direct"), req);
    ASSERT_TRUE(g.algorithm) << g.why_not;
    ASSERT_TRUE(ir::check(*g.algorithm).ok());
    for (const ir::GpuProgram& gpu : g.algorithm->gpus) {
      int reducing_tbs = 0;
      for (const ir::ThreadBlock& tb : gpu.tbs)
        reducing_tbs += std::any_of(tb.steps.begin(), tb.steps.end(), [](const ir::Step& s) { return s.type == ir::OpType::Reduce; });
      EXPECT_EQ(reducing_tbs, k) << "rank " << gpu.rank;
    }
  }
}

}  // namespace
}  // namespace ccforge::search

// Each ring-, tree- and hierarchy-family generator is correct at every rank count from 2 to 16: the
// plain request is produced (not declined) and proven by the checker, for every collective it lists.
namespace ccforge::search {
namespace {

void expect_produced_and_correct(std::string_view generator, GenRequest req) {
  const Generated g = try_generate(*find_generator(generator), req);
  ASSERT_TRUE(g.algorithm) << generator << " " << ir::to_string(req.collective) << " p=" << req.ngpus
                           << " g=" << req.gpus_per_node << ": " << g.why_not;
  const ir::CheckReport report = ir::check(*g.algorithm);
  ASSERT_TRUE(report.ok()) << g.algorithm->name << " " << ir::to_string(req.collective) << " p=" << req.ngpus
                           << " g=" << req.gpus_per_node << ": " << first_issue(report);
}

TEST(SearchGeneratorRanks, RingChainAndTreesAreCorrectAtEveryRankCount) {
  for (std::string_view name : {"ring", "chain", "dbtree", "bintree", "treepack"})
    for (C coll : find_generator(name)->collectives)
      for (int p = 2; p <= 16; ++p)
        for (ir::Protocol proto : {ir::Protocol::Simple, ir::Protocol::LL, ir::Protocol::LL128}) {
          GenRequest req;
          req.collective = coll;
          req.ngpus = p;
          req.protocol = proto;
          req.chunks = name == "ring" ? 1 : 2;  // ring: 2(p-1) hops x chunks steps per tb; 16 ranks fit one piece
          req.trees = test_trees(p);
          expect_produced_and_correct(name, req);
        }
}

TEST(SearchGeneratorRanks, HierarchicalIsCorrectForEveryNodeShapeUpTo16Ranks) {
  for (C coll : find_generator("hierarchical")->collectives)
    for (int p = 2; p <= 16; ++p)
      for (int g = 1; g < p; ++g) {
        if (p % g != 0) continue;
        GenRequest req;
        req.collective = coll;
        req.ngpus = p;
        req.gpus_per_node = g;
        req.instances = 2;
        expect_produced_and_correct("hierarchical", req);
      }
}

TEST(SearchGeneratorRanks, ScaleOutShapesStayWithinTheExecutorLimits) {
  // ndv5-x16: 16 nodes x 8 GPUs. Hierarchical is the multi-node candidate for every collective it
  // lists; rings deal their segments over channels (spread) to stay within 64 steps per threadblock.
  for (C coll : find_generator("hierarchical")->collectives) {
    GenRequest req;
    req.collective = coll;
    req.ngpus = 128;
    req.gpus_per_node = 8;
    expect_produced_and_correct("hierarchical", req);
  }
}

}  // namespace
}  // namespace ccforge::search
