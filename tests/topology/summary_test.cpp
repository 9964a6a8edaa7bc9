// What `topo show` prints comes from summarize(); check it on every bundled topology.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <map>

namespace ccforge::topo {
namespace {

int count_of(const std::vector<CountByName>& counts, const std::string& name) {
  for (const auto& c : counts) {
    if (c.name == name) return c.count;
  }
  return -1;
}

struct Expected {
  const char* file;
  int gpus, nics;
  bool nvswitch;
};

class Bundled : public ::testing::TestWithParam<Expected> {};

TEST_P(Bundled, LoadsWithTheDocumentedCounts) {
  const Expected e = GetParam();
  const TopologySummary s = summarize(load_topology(testing::bundled(e.file)));
  EXPECT_EQ(s.num_gpus, e.gpus);
  EXPECT_EQ(count_of(s.vertices_by_kind, "gpu"), e.gpus);
  EXPECT_EQ(count_of(s.vertices_by_kind, "nic"), e.nics);
  EXPECT_EQ(s.has_nvswitch, e.nvswitch);
  int pairs = 0;
  for (const auto& g : s.pair_groups) pairs += g.pairs;
  EXPECT_EQ(pairs, s.gpus_per_node * (s.num_gpus - 1));
  for (const auto& g : s.pair_groups) EXPECT_LT(g.worst_class, PathClass::Dis) << g.group;
}

INSTANTIATE_TEST_SUITE_P(Topologies, Bundled,
                         ::testing::Values(Expected{"ndv5.xml", 8, 8, true}, Expected{"ndv4.xml", 8, 8, true},
                                           Expected{"dgx-h100.xml", 8, 8, true}, Expected{"dgx1-v100.xml", 8, 4, false},
                                           Expected{"mi300x.xml", 8, 8, false}, Expected{"pcie-4gpu.xml", 4, 1, false},
                                           Expected{"ndv5-x2.xml", 16, 16, true}, Expected{"ndv5-x16.xml", 128, 128, true},
                                           Expected{"ndv5-x128.xml", 1024, 1024, true}));

TEST(Summary, CountsGpuModelsAndNicLineRates) {
  const TopologySummary ndv5 = summarize(load_topology(testing::bundled("ndv5.xml")));
  EXPECT_EQ(count_of(ndv5.gpus_by_model, "H100 SXM"), 8);
  EXPECT_EQ(count_of(ndv5.nics_by_speed, "400G"), 8);
  const TopologySummary box = summarize(load_topology(testing::bundled("pcie-4gpu.xml")));
  EXPECT_EQ(count_of(box.gpus_by_model, "A100 PCIe"), 4);  // named by the file's <machine>
  EXPECT_EQ(count_of(box.nics_by_speed, "100G"), 1);
  const TopologySummary dgx1 = summarize(load_topology(testing::bundled("dgx1-v100.xml")));
  EXPECT_EQ(count_of(dgx1.nics_by_speed, "100G"), 4);
}

TEST(Summary, SmallTopologiesGetTheFullMatrixLargeOnesOnlyGroups) {
  EXPECT_EQ(summarize(load_topology(testing::bundled("ndv5-x2.xml"))).matrix.size(), 16u);
  const TopologySummary big = summarize(load_topology(testing::bundled("ndv5-x128.xml")));
  EXPECT_TRUE(big.matrix.empty());
  std::map<std::string, int> pairs;
  for (const auto& g : big.pair_groups) pairs[g.group] = g.pairs;
  EXPECT_EQ(pairs["intra-node"], 8 * 7);
  EXPECT_EQ(pairs["inter-node, same local index"], 8 * 127);
  EXPECT_EQ(pairs["inter-node, other local index"], 8 * 7 * 127);
}

}  // namespace
}  // namespace ccforge::topo
