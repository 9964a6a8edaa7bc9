// Export: the canonical form is exactly what msccl-tools writes, so real files re-export
// byte-identically, and export -> import -> export is a fixed point.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/ir/ir.hpp"
#include "generators.hpp"
#include "test_files.hpp"

namespace ccforge::ir {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Real files minus the licence comments some start with (the IR keeps no comments), ending in a
// newline (msccl-scheduler's ndv5 ap-1pass file has none after </algo>).
std::string without_leading_comments(std::string text) {
  while (text.rfind("<!--", 0) == 0) text.erase(0, text.find('\n') + 1);
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

TEST(MscclWriter, RealFilesReExportByteIdentically) {
  int with_comments = 0;
  for (const auto& f : testfiles::real_msccl_files()) {
    const std::string original = read_file(f);
    with_comments += original.rfind("<!--", 0) == 0;
    EXPECT_EQ(to_msccl_xml(read_msccl_xml(f)), without_leading_comments(original)) << f;
  }
  EXPECT_EQ(with_comments, 5);
}

TEST(MscclWriter, NormalisingIsIdempotent) {
  // A file in non-canonical but valid form: comments, extra attributes, explicit end tags.
  const std::string messy =
      "<!-- note -->\n"
      "<algo name=\"m\" proto=\"LL128\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\" extra=\"1\">\n"
      "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\">\n"
      "    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\"><step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"></step></tb>\n"
      "  </gpu>\n"
      "</algo>\n";
  const std::string once = to_msccl_xml(parse_msccl_xml(messy, "messy.xml"));
  EXPECT_NE(once, messy);
  EXPECT_EQ(to_msccl_xml(parse_msccl_xml(once, "once.xml")), once);
}

TEST(MscclWriter, BuilderAlgorithmsRoundTrip) {
  for (const Algorithm& a : {testgen::ring_allreduce(4, 2, 2, false), testgen::allpairs_allreduce(4), testgen::ring_allgather(3, true)}) {
    const std::string xml = to_msccl_xml(a);
    EXPECT_EQ(to_msccl_xml(parse_msccl_xml(xml, a.name)), xml) << a.name;
  }
}

TEST(MscclWriter, FollowsTheExecutorsLexicalRules) {
  Algorithm a = testgen::direct_alltoall(3);
  a.name = "a<b & \"c\"";
  const std::string xml = to_msccl_xml(a);
  EXPECT_EQ(xml.rfind("<algo name=\"a&lt;b &amp; &quot;c&quot;\" proto=\"Simple\" nchannels=\"1\"", 0), 0u);
  EXPECT_THAT(xml, Not(HasSubstr("<?xml")));
  EXPECT_THAT(xml, Not(HasSubstr("\t")));
  EXPECT_THAT(xml, Not(HasSubstr("'")));
  EXPECT_THAT(xml, Not(HasSubstr(" />")));
  EXPECT_THAT(xml, HasSubstr("\n  <gpu id=\"0\" i_chunks=\"3\" o_chunks=\"3\" s_chunks=\"0\">\n    <tb id=\"0\" "));
  EXPECT_EQ(parse_msccl_xml(xml, "x").name, a.name);
}

TEST(MscclWriter, WritesFilesAtomically) {
  const auto dir = std::filesystem::temp_directory_path() / "ccforge_ir_writer_test";
  std::filesystem::remove_all(dir);
  const Algorithm a = testgen::chain_broadcast(3, 2);
  write_msccl_xml(a, dir / "sub" / "bcast.xml");
  EXPECT_EQ(read_file(dir / "sub" / "bcast.xml"), to_msccl_xml(a));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "sub")) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary left behind
  std::filesystem::remove_all(dir);
}

TEST(MscclWriter, RefusesToWriteWhatTheExecutorWouldReject) {
  const auto path = std::filesystem::temp_directory_path() / "ccforge_ir_writer_reject.xml";
  std::filesystem::remove(path);
  const Algorithm a = read_msccl_xml(testfiles::source_dir() / "tests/ir/broken/too_many_steps.xml");
  try {
    write_msccl_xml(a, path);
    FAIL() << "wrote a tb with 65 steps";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("[limit.steps] rank 0 tb 0: 65 steps exceed MSCCL_MAX_NUM_STEPS=64"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace ccforge::ir
