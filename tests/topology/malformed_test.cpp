// Every file in tests/topology/malformed/ is one bad input; NAME.expected holds the one-line message it
// must produce ("NAME.xml:LINE: problem (fix)"). Files named *.profile.xml are profiles, applied to ndv5.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ccforge::topo {
namespace {

std::vector<std::filesystem::path> malformed_inputs() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(testing::source_path("tests/topology/malformed"))) {
    if (e.is_regular_file() && e.path().extension() == ".xml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string expected_message(std::filesystem::path input) {
  std::ifstream in(input.replace_extension(".expected"));
  std::string line;
  std::getline(in, line);
  return line;
}

void load(const std::filesystem::path& input) {
  if (input.stem().extension() == ".profile") {
    LoadOptions options;
    options.profile = read_profile(input);
    load_topology(testing::bundled("ndv5.xml"), options);
  } else {
    load_topology(input);
  }
}

class Malformed : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(Malformed, GivesItsOwnOneLineMessage) {
  const std::string expected = expected_message(GetParam());
  ASSERT_FALSE(expected.empty()) << "missing .expected for " << GetParam();
  try {
    load(GetParam());
    FAIL() << GetParam() << " loaded";
  } catch (const DiagError& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, ::testing::HasSubstr(expected));
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_EQ(what.find(GetParam().parent_path().string()), 0u) << "message starts with FILE:LINE";
  }
}

INSTANTIATE_TEST_SUITE_P(TopologyInputs, Malformed, ::testing::ValuesIn(malformed_inputs()),
                         [](const auto& info) {
                           std::string name = info.param.stem().string();
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST(MalformedSet, HasAtLeastTenDistinctMessages) {
  std::set<std::string> messages;
  for (const auto& input : malformed_inputs()) messages.insert(expected_message(input).substr(expected_message(input).find(": ")));
  EXPECT_GE(messages.size(), 10u);
}

}  // namespace
}  // namespace ccforge::topo
