// Every file in tests/ir/broken/ is a small algorithm with one defect and a first line
//   <!-- expect exit=N [rule=RULE] [line=L] text="..." -->
// exit=2: the importer rejects it with "FILE:LINE: ..." containing text; exit=1: it imports and check()
// reports an issue with that rule whose message contains text.
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/ir/ir.hpp"
#include "test_files.hpp"

namespace ccforge::ir {
namespace {

using ::testing::HasSubstr;

struct Expectation {
  int exit = 0;
  std::string rule;
  int line = 0;
  std::string text;
};

Expectation expectation_of(const std::filesystem::path& file) {
  const std::string content = read_file(file);
  const std::string header = content.substr(0, content.find('\n'));
  std::smatch m;
  Expectation e;
  if (std::regex_search(header, m, std::regex(R"(exit=(\d))"))) e.exit = std::stoi(m[1]);
  if (std::regex_search(header, m, std::regex(R"(rule=(\S+))"))) e.rule = m[1];
  if (std::regex_search(header, m, std::regex(R"(line=(\d+))"))) e.line = std::stoi(m[1]);
  if (std::regex_search(header, m, std::regex(R"re(text="(.*)" -->)re"))) e.text = std::regex_replace(std::string(m[1]), std::regex(R"re(\\")re"), "\"");
  return e;
}

class BrokenVariant : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(BrokenVariant, IsRejectedWithItsOwnMessage) {
  const auto& file = GetParam();
  const Expectation want = expectation_of(file);
  ASSERT_TRUE(want.exit == 1 || want.exit == 2) << file << ": missing expect header";
  ASSERT_FALSE(want.text.empty());
  if (want.exit == 2) {
    try {
      read_msccl_xml(file);
      FAIL() << file << " was imported";
    } catch (const DiagError& e) {
      const std::string where = file.string() + (want.line > 0 ? ":" + std::to_string(want.line) + ": " : "");
      EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
      EXPECT_THAT(e.what(), HasSubstr(want.text));
    }
    return;
  }
  const CheckReport report = check(read_msccl_xml(file));
  ASSERT_FALSE(report.ok()) << file;
  bool found = false;
  for (const CheckIssue& i : report.issues) found |= i.rule == want.rule && i.message.find(want.text) != std::string::npos && i.line > 0;
  EXPECT_TRUE(found) << file << ": no [" << want.rule << "] issue saying \"" << want.text << "\"; first: [" << report.issues[0].rule
                     << "] " << report.issues[0].message;
}

INSTANTIATE_TEST_SUITE_P(All, BrokenVariant, ::testing::ValuesIn(testfiles::broken_variant_files()),
                         [](const auto& info) { return info.param.stem().string(); });

TEST(BrokenVariants, AtLeastTwelveDistinctDefectsWithDistinctMessages) {
  std::set<std::string> messages;
  for (const auto& f : testfiles::broken_variant_files()) messages.insert(expectation_of(f).rule + expectation_of(f).text);
  EXPECT_GE(messages.size(), 12u);
  EXPECT_EQ(messages.size(), testfiles::broken_variant_files().size());
}

}  // namespace
}  // namespace ccforge::ir
