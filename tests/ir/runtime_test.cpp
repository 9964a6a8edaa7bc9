// Runtime targets: one file per runtime rule that the generic checker passes and the runtime would
// reject, mis-read or hang on; the real files pass both runtimes' load rules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/runtime.hpp"
#include "generators.hpp"
#include "test_files.hpp"

namespace ccforge::ir {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> rules(const CheckReport& r) {
  std::vector<std::string> out;
  for (const CheckIssue& i : r.issues) out.push_back(i.rule);
  return out;
}

// A one-rank out-of-place allreduce whose `chunks` chunks are copied in -> out by `tbs` local
// threadblocks, `per_step` chunks a step. With `dependee` >= 0 the last chunk goes through scratch:
// threadblock `dependee` copies it there and threadblock 0 waits for it (depid = dependee).
std::string local_copies_xml(int tbs, int chunks, int per_step, int dependee = -1) {
  std::string xml = fmt::format(
      "<algo name=\"local\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"{0}\" ngpus=\"1\" coll=\"allreduce\" "
      "inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n  <gpu id=\"0\" i_chunks=\"{0}\" o_chunks=\"{0}\" "
      "s_chunks=\"{1}\">\n",
      chunks, dependee >= 0 ? 1 : 0);
  std::vector<std::vector<std::string>> steps(static_cast<std::size_t>(tbs));
  const int direct = dependee >= 0 ? chunks - 1 : chunks;
  for (int c = 0, t = 0; c < direct; c += per_step, t = (t + 1) % tbs) {
    const int cnt = std::min(per_step, direct - c);
    auto& tb = steps[static_cast<std::size_t>(t)];
    tb.push_back(fmt::format("<step s=\"{}\" type=\"cpy\" srcbuf=\"i\" srcoff=\"{}\" dstbuf=\"o\" dstoff=\"{}\" cnt=\"{}\" "
                             "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>", tb.size(), c, c, cnt));
  }
  if (dependee >= 0) {
    auto& from = steps[static_cast<std::size_t>(dependee)];
    const std::size_t dep_step = from.size();
    from.push_back(fmt::format("<step s=\"{}\" type=\"cpy\" srcbuf=\"i\" srcoff=\"{}\" dstbuf=\"s\" dstoff=\"0\" cnt=\"1\" "
                               "depid=\"-1\" deps=\"-1\" hasdep=\"1\"/>", dep_step, chunks - 1));
    auto& to = steps[0];
    to.push_back(fmt::format("<step s=\"{}\" type=\"cpy\" srcbuf=\"s\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"{}\" cnt=\"1\" "
                             "depid=\"{}\" deps=\"{}\" hasdep=\"0\"/>", to.size(), chunks - 1, dependee, dep_step));
  }
  for (int t = 0; t < tbs; ++t) {
    xml += fmt::format("    <tb id=\"{}\" send=\"-1\" recv=\"-1\" chan=\"0\">\n", t);
    for (const std::string& s : steps[static_cast<std::size_t>(t)]) xml += "      " + s + "\n";
    xml += "    </tb>\n";
  }
  return xml + "  </gpu>\n</algo>\n";
}

const RuntimeTarget& msccl_nccl() { return runtime_target(Runtime::MscclNccl); }
const RuntimeTarget& rccl() { return runtime_target(Runtime::Rccl); }

TEST(RuntimeTargets, NamesRoundTripAndVendorsPickTheirRuntime) {
  for (Runtime r : {Runtime::MscclNccl, Runtime::Rccl}) EXPECT_EQ(runtime_from_string(to_string(r)), r);
  EXPECT_FALSE(runtime_from_string("nccl"));
  EXPECT_EQ(runtime_for_vendor(true), Runtime::Rccl);
  EXPECT_EQ(runtime_for_vendor(false), Runtime::MscclNccl);
  EXPECT_EQ(rccl().max_tbs_per_rank, 64);
  EXPECT_EQ(msccl_nccl().max_tbs_per_rank, 1024);
  EXPECT_FALSE(schedules(msccl_nccl(), Collective::Gather));
  EXPECT_TRUE(schedules(rccl(), Collective::Scatter));
}

// Every real file loads in both runtimes, except that RCCL refuses LL128 (runtime.protocol).
TEST(RuntimeRules, EveryRealMscclFileLoadsInBothRuntimes) {
  int ll128 = 0;
  for (const auto& f : testfiles::real_msccl_files()) {
    const Algorithm a = read_msccl_xml(f);
    for (Runtime r : {Runtime::MscclNccl, Runtime::Rccl}) {
      CheckReport report;
      check_loadable(a, runtime_target(r), 0, report);
      if (r == Runtime::Rccl && a.protocol == Protocol::LL128) {
        ++ll128;
        EXPECT_EQ(rules(report), std::vector<std::string>{"runtime.protocol"}) << f;
        continue;
      }
      EXPECT_TRUE(report.ok()) << f << " " << to_string(r) << ": " << report.issues.front().message;
    }
  }
  EXPECT_GT(ll128, 0);
}

TEST(RuntimeRules, SixtyFiveThreadblocksLoadInMscclNcclButNotRccl) {
  const Algorithm a = parse_msccl_xml(local_copies_xml(65, 65, 1), "tbs.xml");
  EXPECT_TRUE(check(a).ok());
  EXPECT_TRUE(check(a, msccl_nccl(), 132).ok());
  const CheckReport r = check(a, rccl(), 304);
  ASSERT_EQ(rules(r), std::vector<std::string>{"runtime.tbs"});
  EXPECT_EQ(r.issues[0].rank, 0);
  EXPECT_THAT(r.issues[0].message, HasSubstr("65 threadblocks; RCCL's MSCCL (ROCm >= 6.0) loads at most 64 per rank"));
}

TEST(RuntimeRules, MoreThreadblocksThanSmsCannotAllBeResident) {
  const Algorithm a = parse_msccl_xml(local_copies_xml(109, 109, 1), "resident.xml");
  EXPECT_TRUE(check(a, msccl_nccl(), 132).ok());  // H100 SXM
  const CheckReport r = check(a, msccl_nccl(), 108);  // A100
  ASSERT_EQ(rules(r), std::vector<std::string>{"runtime.resident"});
  EXPECT_THAT(r.issues[0].message, HasSubstr("109 threadblocks on a GPU with 108 SMs/CUs"));
}

TEST(RuntimeRules, DependingOnThreadblock128WrapsTheInt8Depid) {
  const Algorithm ok = parse_msccl_xml(local_copies_xml(130, 130, 1, 127), "depid_ok.xml");
  EXPECT_TRUE(check(ok, msccl_nccl(), 132).ok()) << rules(check(ok, msccl_nccl(), 132)).front();
  const Algorithm a = parse_msccl_xml(local_copies_xml(130, 130, 1, 128), "depid.xml");
  EXPECT_TRUE(check(a).ok());
  const CheckReport r = check(a, msccl_nccl(), 132);
  ASSERT_EQ(rules(r), std::vector<std::string>{"runtime.depid"});
  EXPECT_EQ(r.issues[0].tb, 0);
  EXPECT_EQ(r.issues[0].step, 1);
  EXPECT_GT(r.issues[0].line, 0);
  EXPECT_THAT(r.issues[0].message, HasSubstr("depid=128 does not fit the runtime's int8_t dependentBid"));
}

TEST(RuntimeRules, OffsetsPastInt16AreRejected) {
  // 40,000 chunks, 71 a step, over 10 threadblocks: 57 steps each, the last ones starting past 32,767.
  const Algorithm a = parse_msccl_xml(local_copies_xml(10, 40000, 71), "offset.xml");
  EXPECT_TRUE(check(a).ok());
  const CheckReport r = check(a, rccl(), 304);
  ASSERT_FALSE(r.ok());
  for (const CheckIssue& i : r.issues) EXPECT_EQ(i.rule, "runtime.offset");
  EXPECT_THAT(r.issues[0].message, HasSubstr("does not fit the runtime's int16_t offset (at most 32767)"));
}

TEST(RuntimeRules, TheParsersNodeArrayBoundsTbsPlusSteps) {
  // <algo> + 1 <gpu> + 64 <tb> + 4029 <step> = 4095 elements fit; one step more does not.
  EXPECT_TRUE(check(parse_msccl_xml(local_copies_xml(64, 4029, 1), "nodes_ok.xml"), rccl(), 304).ok());
  const Algorithm a = parse_msccl_xml(local_copies_xml(64, 4030, 1), "nodes.xml");
  EXPECT_TRUE(check(a).ok());
  const CheckReport r = check(a, rccl(), 304);
  ASSERT_EQ(rules(r), std::vector<std::string>{"runtime.xml_nodes"});
  EXPECT_THAT(r.issues[0].message, HasSubstr("counts 4096 elements"));
}

TEST(RuntimeRules, MoreRanksThanTheParserStores) {
  Algorithm a;
  a.ngpus = 1025;
  CheckReport r;
  check_loadable(a, msccl_nccl(), 0, r);
  ASSERT_EQ(rules(r), std::vector<std::string>{"runtime.ranks"});
}

TEST(RuntimeRules, GatherHasNoEntryPointInMscclNccl) {
  const Algorithm g = testgen::direct_gather(4);
  ASSERT_TRUE(check(g).ok());
  const CheckReport nccl = check(g, msccl_nccl(), 132);
  ASSERT_EQ(rules(nccl), std::vector<std::string>{"runtime.collective"});
  EXPECT_THAT(nccl.issues[0].message, HasSubstr("msccl-executor-nccl has no gather entry point"));
  const CheckReport amd = check(g, rccl(), 304);
  EXPECT_TRUE(amd.ok());
  ASSERT_EQ(amd.notes.size(), 1u);
  EXPECT_THAT(amd.notes[0], HasSubstr("assumes root 0"));
}

}  // namespace
}  // namespace ccforge::ir
