// Import: real MSCCL files load with the right shape; the lenient parts of the executor's syntax are
// accepted; strict numbers. Rejections of malformed files are in broken_variants_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/ir/ir.hpp"
#include "test_files.hpp"

namespace ccforge::ir {
namespace {

using ::testing::HasSubstr;

int total_steps(const Algorithm& a) {
  int n = 0;
  for (const GpuProgram& g : a.gpus)
    for (const ThreadBlock& tb : g.tbs) n += static_cast<int>(tb.steps.size());
  return n;
}

TEST(MscclReader, LoadsTheRcclOnePassFileWithScratchNopsAndReduceChains) {
  // allreduce-1step-4n-ll-1pass.xml: 4 GPUs, LL, in-place, 232 <step> lines (grep -c '<step').
  const Algorithm a = read_msccl_xml(testfiles::source_dir() / "tests/data/msccl/msccl_rccl_allreduce-1step-4n-ll-1pass.xml");
  EXPECT_EQ(a.name, "allreduce_pairs");
  EXPECT_EQ(a.collective, Collective::AllReduce);
  EXPECT_EQ(a.protocol, Protocol::LL);
  EXPECT_EQ(a.ngpus, 4);
  EXPECT_EQ(a.nchannels, 2);
  EXPECT_EQ(a.nchunksperloop, 8);
  EXPECT_TRUE(a.inplace);
  EXPECT_FALSE(a.outofplace);
  EXPECT_EQ(a.min_bytes, 2048u);
  EXPECT_EQ(a.max_bytes, 13312u);
  EXPECT_EQ(a.gpus[0].input_chunks, 8);
  EXPECT_EQ(a.gpus[0].output_chunks, 0);
  EXPECT_EQ(a.gpus[0].scratch_chunks, 24);
  EXPECT_EQ(total_steps(a), 232);
}

TEST(MscclReader, RecordsSourceLinesOfGpusTbsAndSteps) {
  const Algorithm a = read_msccl_xml(testfiles::source_dir() / "tests/data/msccl/msccl_ncv4_ag_hier_4_LL.xml");
  EXPECT_EQ(a.gpus[0].line, 2);
  EXPECT_EQ(a.gpus[0].tbs[0].line, 3);
  EXPECT_EQ(a.gpus[0].tbs[0].steps[0].line, 4);
  EXPECT_THAT(a.source_file, HasSubstr("msccl_ncv4_ag_hier_4_LL.xml"));
}

TEST(MscclReader, EveryRealFileImports) {
  const auto files = testfiles::real_msccl_files();
  ASSERT_EQ(files.size(), 24u);
  for (const auto& f : files) EXPECT_NO_THROW(read_msccl_xml(f)) << f;
}

constexpr const char* kLenient = R"(<!-- a comment before the root, as two real files have -->
<algo name="x" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="0" outofplace="1" minBytes="0" maxBytes="0" nthreadblocks="4">
  <gpu id="1" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0" extra="ignored">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <!-- comments between steps -->
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"></step>
    </tb>
  </gpu>
  <gpu id="0" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";

TEST(MscclReader, AcceptsWhatTheExecutorAccepts) {
  // Comments, unknown extra attributes, self-closing and explicitly closed steps, gpus in any order.
  const Algorithm a = parse_msccl_xml(kLenient, "lenient.xml");
  ASSERT_EQ(a.gpus.size(), 2u);
  EXPECT_EQ(a.gpus[1].rank, 1);
  EXPECT_EQ(a.gpus[1].tbs[0].steps.size(), 2u);
  EXPECT_EQ(a.gpus[1].tbs[0].steps[1].line, 7);
}

TEST(MscclReader, AcceptsSelfClosingGpuAndEmptyTb) {
  const Algorithm a = parse_msccl_xml(
      "<algo name=\"e\" proto=\"LL\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"2\" coll=\"send\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n"
      "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"/>\n"
      "  <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\">\n"
      "    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\"/>\n"
      "  </gpu>\n"
      "</algo>\n",
      "empty.xml");
  EXPECT_TRUE(a.gpus[0].tbs.empty());
  EXPECT_TRUE(a.gpus[1].tbs[0].steps.empty());
}

TEST(MscclReader, SortsThreadBlocksById) {
  const Algorithm a = parse_msccl_xml(
      "<algo name=\"e\" proto=\"LL\" nchannels=\"2\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">\n"
      "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\">\n"
      "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"1\"/>\n"
      "    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\"/>\n"
      "  </gpu>\n"
      "</algo>\n",
      "order.xml");
  EXPECT_EQ(a.gpus[0].tbs[0].channel, 0);
  EXPECT_EQ(a.gpus[0].tbs[1].channel, 1);
}

TEST(MscclReader, MissingGpuIsReportedOnTheAlgoLine) {
  try {
    parse_msccl_xml("<algo name=\"e\" proto=\"LL\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">\n"
                    "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\"/>\n</algo>\n",
                    "m.xml");
    FAIL() << "accepted a file without gpu 1";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("m.xml:1: no <gpu id=\"1\">"));
  }
}

TEST(MscclReader, EmptyInputIsOneLineError) {
  try {
    parse_msccl_xml("", "empty.xml");
    FAIL();
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("empty.xml"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

std::string with_minbytes(const std::string& value) {
  return "<algo name=\"n\" proto=\"LL\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"allreduce\" inplace=\"1\" "
         "outofplace=\"0\" minBytes=\"" + value + "\" maxBytes=\"0\">\n  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\"/>\n</algo>\n";
}

TEST(MscclReader, ReadsNumbersOnlyWhenStrtolBaseZeroReadsThemTheSameWay) {
  EXPECT_EQ(parse_msccl_xml(with_minbytes("0"), "n.xml").min_bytes, 0u);
  EXPECT_EQ(parse_msccl_xml(with_minbytes("792576"), "n.xml").min_bytes, 792576u);
  for (const char* bad : {"010", "0x10", "-0", "", "-", "12abc", " 1", "1234567890123456789", "-5"})
    EXPECT_THROW(parse_msccl_xml(with_minbytes(bad), "n.xml"), DiagError) << "minBytes=\"" << bad << "\"";
}

}  // namespace
}  // namespace ccforge::ir
