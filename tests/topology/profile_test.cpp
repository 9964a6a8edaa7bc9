#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace ccforge::topo {
namespace {

using ::testing::HasSubstr;

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("ccforge_topology_test_" + std::to_string(::getpid()) + "_" + name);
}

TEST(Profile, WrittenProfileReadsBackEveryEntry) {
  const ParamTable table = default_link_params();
  const auto path = temp_file("roundtrip.xml");
  write_profile({&table}, path);
  const std::vector<ProfileEntry> entries = read_profile(path);
  ASSERT_EQ(entries.size(), table.all().size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(entries[i].name, table.all()[i].name);
    EXPECT_DOUBLE_EQ(entries[i].value, table.all()[i].value);
  }
  std::filesystem::remove(path);
}

TEST(Profile, OverrideChangesRouteLatencyAndRecordsItsSource) {
  const auto path = temp_file("override.xml");
  std::ofstream(path) << "<profile>\n  <param name=\"link.nvswitch.latency\" value=\"0.5\"/>\n"
                         "  <param name=\"sim.other_part\" value=\"1\"/>\n</profile>\n";
  LoadOptions options;
  options.profile = read_profile(path);
  const Topology t = load_topology(testing::bundled("ndv5.xml"), options);
  EXPECT_DOUBLE_EQ(t.route(0, 1).latency.us(), 1.0);  // two NVSwitch hops of 0.5 us
  EXPECT_THAT(t.link_params().find("link.nvswitch.latency")->source, HasSubstr("override.xml:2"));
  std::filesystem::remove(path);
}

TEST(Profile, UnknownLinkNameIsAnErrorAtItsLine) {
  ParamTable table = default_link_params();
  const std::vector<ProfileEntry> entries{{"link.nvlink.bogus", 1.0, {"p.xml", 7}}};
  try {
    apply_profile(table, entries, "link.");
    FAIL() << "unknown name accepted";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("p.xml:7: unknown parameter name \"link.nvlink.bogus\""));
  }
}

// A profile's link value reaches the typed constants the builders read, and through them the links.
TEST(Profile, OverrideReachesTheTypedLinkConstants) {
  LoadOptions options;
  options.profile = {{"link.nvlink.sm90.bw_per_link", 20.0, {"p.xml", 3}}};
  const Topology t = load_topology(testing::bundled("ndv5.xml"), options);
  EXPECT_DOUBLE_EQ(t.link_constants().peer_link(GpuArch::Hopper), 20.0);
  EXPECT_DOUBLE_EQ(t.gpu(0).nvlink_bandwidth.gbps(), 18 * 20.0);
}

TEST(Profile, NegativeLinkLatencyIsOutOfRangeAtItsLine) {
  LoadOptions options;
  options.profile = {{"link.pcie.latency", -0.5, {"p.xml", 4}}};
  try {
    load_topology(testing::bundled("ndv5.xml"), options);
    FAIL() << "negative latency accepted";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("p.xml:4: link.pcie.latency = -0.5 is out of range"));
    EXPECT_THAT(e.what(), HasSubstr("a latency is at least 0"));
  }
}

}  // namespace
}  // namespace ccforge::topo
