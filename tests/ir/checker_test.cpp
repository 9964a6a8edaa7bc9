// check(): real files and hand-written algorithms pass; limits are configurable; in-place aliasing
// and the collectives without a postcondition are handled as documented.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/ir/ir.hpp"
#include "generators.hpp"
#include "test_files.hpp"

namespace ccforge::ir {
namespace {

using ::testing::HasSubstr;

std::string first_issue(const CheckReport& r) { return r.ok() ? "" : "[" + r.issues[0].rule + "] " + r.issues[0].message; }

bool has_rule(const CheckReport& r, const std::string& rule) {
  for (const CheckIssue& i : r.issues)
    if (i.rule == rule) return true;
  return false;
}

TEST(Checker, EveryRealMscclFilePasses) {
  for (const auto& f : testfiles::real_msccl_files()) {
    const CheckReport r = check(read_msccl_xml(f));
    EXPECT_TRUE(r.ok()) << f << ": " << first_issue(r);
    EXPECT_TRUE(r.notes.empty()) << f;
  }
}

TEST(Checker, HandWrittenAlgorithmsForEveryCollectivePass) {
  const Algorithm algos[] = {
      testgen::ring_allreduce(5, 2, 3, false), testgen::ring_allreduce(4, 1, 1, true), testgen::ring_reducescatter(4, false),
      testgen::ring_reducescatter(4, true),    testgen::ring_allgather(5, false),      testgen::ring_allgather(5, true),
      testgen::direct_allgather(4),            testgen::direct_alltoall(4),            testgen::chain_broadcast(4, 3),
      testgen::chain_reduce(4, 3),             testgen::direct_gather(4),              testgen::direct_scatter(4),
      testgen::allpairs_allreduce(4)};
  for (const Algorithm& a : algos) EXPECT_TRUE(check(a).ok()) << a.name << (a.inplace ? " in-place: " : ": ") << first_issue(check(a));
}

TEST(Checker, InPlaceAndOutOfPlaceAreBothProvenWhenBothAreClaimed) {
  // An out-of-place ring allgather copies in -> out first; claimed in-place too, that copy reads
  // o[r] through the alias and is still correct, so both modes pass.
  Algorithm a = testgen::ring_allgather(3, false);
  a.inplace = true;
  EXPECT_TRUE(check(a).ok()) << first_issue(check(a));
  // An in-place allreduce (no o buffer) claimed out-of-place leaves the output unwritten.
  Algorithm b = testgen::ring_allreduce(3, 1, 1, true);
  b.outofplace = true;
  const CheckReport r = check(b);
  EXPECT_TRUE(has_rule(r, "postcondition.shape")) << first_issue(r);  // no output buffer at all
}

// The executor's gather buffers for nchunksperloop=n: input n chunks, root output ngpus x n
// (sizeMultiplier 1). The old convention (nchunksperloop = ngpus x per-rank chunks) leaves most of every
// input unsent at run time, though the data movement itself is a correct gather.
TEST(Checker, ChunkCountsMustBeTheExecutorsBuffersForNchunksperloop) {
  Algorithm g = testgen::direct_gather(3);
  ASSERT_TRUE(check(g).ok()) << first_issue(check(g));
  g.nchunksperloop = 3;
  const CheckReport r = check(g);
  ASSERT_EQ(r.issues.size(), 1u) << first_issue(r);
  EXPECT_EQ(r.issues[0].rule, "buffers");
  EXPECT_EQ(r.issues[0].rank, 0);
  EXPECT_THAT(r.issues[0].message, HasSubstr("addresses 1 input chunks but the executor's input buffer holds 3"));
  EXPECT_THAT(r.issues[0].message, HasSubstr("(set nchunksperloop=\"1\")"));

  Algorithm s = testgen::direct_scatter(3);
  s.nchunksperloop = 3;
  EXPECT_THAT(first_issue(check(s)), HasSubstr("[buffers] addresses 3 input chunks but the executor's input buffer holds 9"));

  // An allreduce that reduces only half of the executor's buffer.
  Algorithm a = testgen::ring_allreduce(4, 1, 1, true);
  a.nchunksperloop = 8;
  EXPECT_THAT(first_issue(check(a)), HasSubstr("addresses 4 input chunks but the executor's input buffer holds 8"));
  // Allgather chunks must split evenly over the ranks.
  Algorithm ag = testgen::ring_allgather(3, false);
  ag.nchunksperloop = 4;
  EXPECT_THAT(first_issue(check(ag)), HasSubstr("[buffers] nchunksperloop=4 does not split each rank's share of the allgather buffer into whole chunks (use a positive multiple of 3)"));
}

TEST(Checker, LimitsAreConfigurable) {
  const Algorithm a = testgen::ring_allreduce(4, 4, 1, true);  // 4 channels' worth of chunks on one channel
  EXPECT_TRUE(check(a).ok());
  Limits tight;
  tight.max_steps_per_tb = 4;
  EXPECT_TRUE(has_rule(check(a, tight), "limit.steps"));
  tight = Limits{};
  tight.max_tbs_per_channel = 0;
  EXPECT_TRUE(has_rule(check(a, tight), "limit.tbs"));
}

TEST(Checker, CollectivesWithoutPostconditionAreCheckedForOrderOnlyAndSayWhy) {
  Algorithm a = testgen::direct_alltoall(3);
  a.collective = Collective::Send;
  const CheckReport r = check(a);
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_THAT(r.notes[0], HasSubstr("no fixed postcondition"));
}

TEST(Checker, WrongCollectiveForTheDataMovementFailsThePostcondition) {
  Algorithm a = testgen::direct_allgather(3);
  a.collective = Collective::AllToAll;  // allgather data is not an alltoall
  EXPECT_FALSE(check(a).ok());
}

TEST(Checker, IssuesNameRankTbStepAndLine) {
  const Algorithm a = read_msccl_xml(testfiles::source_dir() / "tests/ir/broken/race.xml");
  const CheckReport r = check(a);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.issues[0].rule, "race");
  EXPECT_EQ(r.issues[0].rank, 0);
  EXPECT_EQ(r.issues[0].tb, 1);
  EXPECT_EQ(r.issues[0].step, 1);
  EXPECT_EQ(r.issues[0].line, 12);
}

// Run in place, the NDv4 two-step alltoall overwrites chunks other tbs still read: far more races than
// are reported. The race check sweeps one rank at a time, yet reports chunk by chunk, the first 20.
TEST(Checker, RacesAreReportedChunkByChunkUpToTwenty) {
  Algorithm a = read_msccl_xml(testfiles::source_dir() / "tests/data/msccl/msccl_ndv4_a2a2ll.xml");
  a.inplace = true;
  a.outofplace = false;
  const CheckReport r = check(a);
  ASSERT_EQ(r.issues.size(), 20u);
  int last_rank = 0, last_chunk = -1;
  for (const CheckIssue& i : r.issues) {
    ASSERT_EQ(i.rule, "race");
    const std::size_t open = i.message.find('['), close = i.message.find(']');
    const int chunk = std::stoi(i.message.substr(open + 1, close - open - 1));
    EXPECT_TRUE(i.rank > last_rank || (i.rank == last_rank && chunk > last_chunk)) << i.message;
    last_rank = i.rank;
    last_chunk = chunk;
  }
}

TEST(Checker, FusedReduceChainLongerThanSixteenIsALimit) {
  // One rank reduces 17 scratch chunks into its output in one fused chain.
  Algorithm a;
  a.name = "chain";
  a.collective = Collective::Send;  // no postcondition: only the fusion limit matters here
  a.ngpus = 1;
  a.gpus.resize(1);
  a.gpus[0].input_chunks = 1;
  a.gpus[0].output_chunks = 1;
  a.gpus[0].scratch_chunks = 17;
  ThreadBlock tb;
  for (int k = 0; k < 17; ++k) tb.steps.push_back(Step{OpType::Reduce, BufferKind::Scratch, k, BufferKind::Output, 0, 1});
  a.gpus[0].tbs.push_back(tb);
  EXPECT_TRUE(has_rule(check(a), "limit.fusion"));
  a.gpus[0].tbs[0].steps[8].has_dep = true;  // hasdep ends a chain: 9 + 8
  EXPECT_FALSE(has_rule(check(a), "limit.fusion"));
}

}  // namespace
}  // namespace ccforge::ir

namespace ccforge::ir {
namespace {

TEST(Checker, AbsurdBufferSizesAreRefusedNotAllocated) {
  Algorithm a = testgen::direct_alltoall(2);
  a.gpus[1].scratch_chunks = 2'000'000'000;
  const CheckReport r = check(a);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.issues[0].rule, "limit.size");
}

TEST(Checker, HugeNgpusIsReportedWithoutAllocatingIt) {
  EXPECT_THROW(parse_msccl_xml("<algo name=\"h\" proto=\"LL\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"2000000000\" coll=\"allreduce\" "
                               "inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">\n"
                               "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\"/>\n</algo>\n",
                               "h.xml"),
               DiagError);
}

}  // namespace
}  // namespace ccforge::ir
