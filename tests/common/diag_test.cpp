#include "ccforge/common/diag.hpp"

#include <gtest/gtest.h>

namespace ccforge {
namespace {

TEST(Diag, FormatsFileLineProblemAndFix) {
  Diag d{{"topo.xml", 12}, "duplicate busid 0000:1b:00.0", "give each <pci> its own busid"};
  EXPECT_EQ(d.str(), "topo.xml:12: duplicate busid 0000:1b:00.0 (give each <pci> its own busid)");
}

TEST(Diag, OmitsMissingLineAndFix) {
  EXPECT_EQ((Diag{{"a.xml", 0}, "cannot open file", ""}.str()), "a.xml: cannot open file");
}

TEST(Diag, ErrorCarriesTheDiagnostic) {
  DiagError e(Diag{{"x", 3}, "bad", "fix"});
  EXPECT_STREQ(e.what(), "x:3: bad (fix)");
  EXPECT_EQ(e.diag().loc.line, 3);
}

TEST(LineAtOffset, CountsNewlinesBeforeTheOffset) {
  const std::string_view text = "a\nbc\nd";
  EXPECT_EQ(line_at_offset(text, 0), 1);
  EXPECT_EQ(line_at_offset(text, 2), 2);
  EXPECT_EQ(line_at_offset(text, 5), 3);
  EXPECT_EQ(line_at_offset(text, 500), 3);
  EXPECT_EQ(line_at_offset(text, -1), 0);
}

}  // namespace
}  // namespace ccforge
