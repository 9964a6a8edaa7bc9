#include "ccforge/topology/topology.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <utility>
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

// NVLink/xGMI defaults are the GPU catalogue's datasheet rates, not a second copy of them.
TEST(LinkParams, PeerLinkDefaultsAreTheCataloguesDatasheetRates) {
  const ParamTable t = default_link_params();
  const LinkConstants c = load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml").link_constants();
  const std::pair<const char*, GpuArch> names[] = {{"link.nvlink.sm70.bw_per_link", GpuArch::Volta},
                                                   {"link.nvlink.sm80.bw_per_link", GpuArch::Ampere},
                                                   {"link.nvlink.sm90.bw_per_link", GpuArch::Hopper},
                                                   {"link.nvlink.sm100.bw_per_link", GpuArch::Blackwell},
                                                   {"link.xgmi.bw_per_link", GpuArch::Cdna3}};
  for (const auto& [name, arch] : names) {
    const GpuModel& m = architecture_model(arch);
    EXPECT_DOUBLE_EQ(t.get(name), m.peer_link_gbs()) << name;
    EXPECT_EQ(t.find(name)->source, m.fabric_source) << name;
    EXPECT_DOUBLE_EQ(c.peer_link(arch), m.peer_link_gbs()) << name;
  }
  EXPECT_STREQ(architecture_model(GpuArch::Hopper).name, "H100 SXM");
  EXPECT_DOUBLE_EQ(find_gpu_model("B200")->peer_link_gbs(), 50.0);  // 1.8 TB/s over 18 links, per direction
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
