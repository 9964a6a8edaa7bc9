#include "ccforge/topology/topology.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include "source_dir.hpp"

namespace ccforge::topo {
namespace {

TEST(LinkParams, EveryEntryIsLinkPrefixedUniquePositiveAndSourced) {
  const ParamTable table = default_link_params();
  std::set<std::string> names;
  for (const Param& p : table.all()) {
    EXPECT_TRUE(p.name.starts_with("link.")) << p.name;
    EXPECT_TRUE(names.insert(p.name).second) << "duplicate " << p.name;
    EXPECT_GT(p.value, 0.0) << p.name;
    EXPECT_TRUE(p.unit == "GB/s" || p.unit == "us") << p.name;
    EXPECT_FALSE(p.source.empty()) << p.name;
  }
}

TEST(LinkParams, PhysicalValuesFollowTheSpecs) {
  const ParamTable t = default_link_params();
  // H100 datasheet: 900 GB/s bidirectional over 18 links -> 25 GB/s per link and direction.
  EXPECT_DOUBLE_EQ(t.get("link.nvlink.sm90.bw_per_link") * 18 * 2, 900.0);
  // PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s.
  EXPECT_NEAR(t.get("link.pcie.gen5.bw_per_lane") * 16, 63.015, 1e-3);
  EXPECT_EQ(t.find("link.nccl.nvlink.sm90.bw_per_link"), nullptr);  // NCCL's model value is sim's
}

}  // namespace
}  // namespace ccforge::topo

namespace ccforge::topo {
namespace {

// The simulator engineer reads the parameter names from topology/README.md: keep it complete.
TEST(LinkParams, ReadmeDocumentsEveryName) {
  std::ifstream in(std::string(CCFORGE_SOURCE_DIR) + "/topology/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const ParamTable table = default_link_params();
  for (const Param& p : table.all()) EXPECT_NE(readme.find("| " + p.name + " |"), std::string::npos) << p.name;
}

}  // namespace
}  // namespace ccforge::topo
