// Both NCCL XML forms: Azure's partial PCI-only files completed from a machine description, and full dumps.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ccforge::topo {
namespace {

using testing::azure;
using testing::bundled;
using ::testing::HasSubstr;

int count(const Topology& t, VertexKind kind) {
  int n = 0;
  for (const Vertex& v : t.vertices()) n += v.kind == kind;
  return n;
}

LoadOptions machine(const char* model, double nic_gbps) {
  return LoadOptions{MachineDescription{model, "nvswitch", std::nullopt, nic_gbps}, {}};
}

TEST(NcclXmlReader, AzureNdv5CompletedFromMachineHas8H100And8NdrNics) {
  const Topology t = load_topology(azure("ndv5-topo.xml"), machine("H100 SXM", 400));
  EXPECT_EQ(t.num_gpus(), 8);
  EXPECT_EQ(count(t, VertexKind::Nic), 8);
  EXPECT_EQ(count(t, VertexKind::Cpu), 2);
  EXPECT_TRUE(t.has_nvswitch());
  for (int r = 0; r < 8; ++r) {
    const GpuInfo& g = t.gpu(r);
    EXPECT_EQ(g.model, find_gpu_model("H100 SXM"));
    EXPECT_EQ(g.model->sm, 90);
    EXPECT_DOUBLE_EQ(g.nvlink_bandwidth.gbps(), 18 * 25.0);  // 18 NVLink4 links x 25 GB/s
    EXPECT_EQ(g.fabric_links, 18);
    EXPECT_DOUBLE_EQ(g.nic_bandwidth.gbps(), 50.0);           // 400 Gb/s
    EXPECT_NEAR(g.pcie_bandwidth.gbps(), 16 * 32.0 * 128 / 130 / 8, 1e-9);  // Gen5 x16
    ASSERT_TRUE(g.nearest_nic);
    EXPECT_EQ(t.vertex(*g.nearest_nic).numa, g.numa);
  }
  // The file's fake bridges pair GPU 0008 with NIC 0104 (4th NIC by bus id) on NUMA 0.
  EXPECT_EQ(t.vertex(t.gpu(3).vertex).name, "0008:00:00.0");
  EXPECT_EQ(t.vertex(*t.gpu(3).nearest_nic).name, "mlx5_3");
}

TEST(NcclXmlReader, AzureNdv4CompletedFromMachineHas8A100And8HdrNicsOn4Numa) {
  const Topology t = load_topology(azure("ndv4-topo.xml"), machine("A100 SXM", 200));
  EXPECT_EQ(t.num_gpus(), 8);
  EXPECT_EQ(count(t, VertexKind::Nic), 8);
  EXPECT_EQ(count(t, VertexKind::Cpu), 4);
  for (int r = 0; r < 8; ++r) {
    EXPECT_DOUBLE_EQ(t.gpu(r).nvlink_bandwidth.gbps(), 12 * 25.0);
    EXPECT_EQ(t.gpu(r).fabric_links, 12);
    EXPECT_DOUBLE_EQ(t.gpu(r).nic_bandwidth.gbps(), 25.0);
    EXPECT_EQ(t.vertex(*t.gpu(r).nearest_nic).numa, t.gpu(r).numa);
  }
  // Rank 0 is GPU 0001 (bus id order), which sits on NUMA 1 with NICs 0101/0102.
  EXPECT_EQ(t.gpu(0).numa, 1);
  EXPECT_EQ(t.vertex(*t.gpu(0).nearest_nic).name, "mlx5_0");
}

TEST(NcclXmlReader, PartialFileWithoutMachineSaysWhichFlagsToAdd) {
  try {
    load_topology(azure("ndv5-topo.xml"));
    FAIL() << "a partial file loaded without a machine description";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("ndv5-topo.xml:4: partial NCCL topology"));
    EXPECT_THAT(e.what(), HasSubstr("--gpu-model"));
    EXPECT_THAT(e.what(), HasSubstr("--nic-gbps"));
  }
}

TEST(NcclXmlReader, BundledNdv5WrapperNeedsNoFlags) {
  const Topology t = load_topology(bundled("ndv5.xml"));
  EXPECT_EQ(t.name(), "ndv5");
  EXPECT_EQ(t.num_gpus(), 8);
  EXPECT_EQ(count(t, VertexKind::Nic), 8);
  EXPECT_TRUE(t.has_nvswitch());
  EXPECT_DOUBLE_EQ(t.gpu(7).nic_bandwidth.gbps(), 50.0);
}

TEST(NcclXmlReader, CommandLineMachineOverridesTheFiles) {
  const Topology t = load_topology(bundled("ndv5.xml"), machine("H100 SXM", 200));
  EXPECT_DOUBLE_EQ(t.gpu(0).nic_bandwidth.gbps(), 25.0);
}

TEST(NcclXmlReader, FullDumpNcv4DropsSelfNvlinksAndKeepsHostNic) {
  const Topology t = load_topology(azure("ncv4-topo.xml"));
  EXPECT_EQ(t.num_gpus(), 4);
  EXPECT_EQ(count(t, VertexKind::Nic), 1);
  EXPECT_FALSE(t.has_nvswitch());
  for (const Link& l : t.links()) EXPECT_NE(l.kind, LinkKind::NvLink) << "self-targeting NVLinks carry nothing";
  EXPECT_DOUBLE_EQ(t.gpu(0).nic_bandwidth.gbps(), 12.5);  // speed="100000" Mb/s
  // Each GPU has its own AMD socket: GPU pairs meet across the CPU interconnect.
  EXPECT_EQ(t.route(0, 1).path_class, PathClass::Sys);
}

TEST(NcclXmlReader, FullDumpDgxH100MergesFourNvSwitchTargetsInto18Links) {
  const Topology t = load_topology(bundled("dgx-h100.xml"));
  EXPECT_EQ(count(t, VertexKind::NvSwitch), 1);
  EXPECT_DOUBLE_EQ(t.gpu(0).nvlink_bandwidth.gbps(), (5 + 5 + 4 + 4) * 25.0);
  EXPECT_EQ(t.gpu(0).fabric_links, 5 + 5 + 4 + 4);
  EXPECT_EQ(t.route(0, 7).path_class, PathClass::Nvl);
  EXPECT_EQ(t.route(0, 7).links.size(), 2u);  // GPU -> NVSwitch -> GPU
}

}  // namespace
}  // namespace ccforge::topo
