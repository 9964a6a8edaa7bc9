// topo import on real tool outputs (tests/data/import, SOURCES.md): each imported H100, A100 and MI300X
// node routes GPU to GPU and places its NICs as the bundled machine does; bad inputs name FILE:LINE.
#include "ccforge/topology/import.hpp"
#include "test_paths.hpp"

#include "ccforge/common/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

namespace ccforge::topo {
namespace {

std::filesystem::path import_data(const std::string& name) { return testing::source_path("tests/data/import/" + name); }

// The imported node written where load_topology can read it.
Topology load_imported(const ImportedNode& node) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ccforge-import-test-" + std::to_string(::getpid()) + "-" + node.name + ".xml");
  write_file_atomically(path, node.node_xml);
  Topology t = load_topology(path);
  std::filesystem::remove(path);
  return t;
}

ImportInputs inputs(const std::filesystem::path& file, const std::string& model = "", std::optional<double> nic_gbps = std::nullopt) {
  ImportInputs in;
  in.input = file;
  in.gpu_model = model;
  in.nic_gbps = nic_gbps;
  return in;
}

bool has_note(const ImportedNode& node, bool assumed, const std::string& text) {
  for (const ImportNote& n : node.notes) {
    if (n.assumed == assumed && n.text.find(text) != std::string::npos) return true;
  }
  return false;
}

void expect_same_routes_and_placement(const Topology& bundled, const Topology& imported) {
  ASSERT_EQ(bundled.num_gpus(), imported.num_gpus());
  for (int s = 0; s < bundled.num_gpus(); ++s) {
    for (int d = 0; d < bundled.num_gpus(); ++d) {
      if (s == d) continue;
      const Route& a = bundled.route(s, d);
      const Route& b = imported.route(s, d);
      EXPECT_DOUBLE_EQ(a.bottleneck.bytes_per_s, b.bottleneck.bytes_per_s) << s << "->" << d;
      EXPECT_NEAR(a.latency.us(), b.latency.us(), 1e-9) << s << "->" << d;
      EXPECT_EQ(a.path_class, b.path_class) << s << "->" << d;
    }
  }
  EXPECT_EQ(nic_placement(bundled), nic_placement(imported));
}

TEST(Import, NcclDumpOfHgxH100MatchesDgxH100) {
  const ImportedNode node = import_node(inputs(import_data("ibm-hgx-h100-dump.xml")));
  EXPECT_TRUE(has_note(node, false, "18 NVLinks per GPU into NVSwitch"));
  EXPECT_DOUBLE_EQ(node.nic_gbps, 200);  // IBM's RoCE ports, read from <net speed>
  const Topology t = load_imported(node);
  EXPECT_EQ(t.gpu(0).model->name, std::string("H100 SXM"));
  expect_same_routes_and_placement(load_topology(testing::bundled("dgx-h100.xml")), t);
}

TEST(Import, TopoMatrixOfDgxA100MatchesNdv4) {
  const ImportedNode node = import_node(inputs(import_data("dgx-a100-topo-m.txt"), "A100 SXM", 200));
  EXPECT_TRUE(has_note(node, false, "NVSwitch: NV12 to each of 7 peers"));
  EXPECT_TRUE(has_note(node, true, "devices at PXB share one PCIe switch"));
  EXPECT_TRUE(has_note(node, true, "4 NIC(s) that reach every GPU only across sockets"));
  const Topology t = load_imported(node);
  expect_same_routes_and_placement(load_topology(testing::bundled("ndv4.xml")), t);
}

TEST(Import, TopoMatrixOfBareMetalH100MatchesDgxH100) {
  ImportInputs in = inputs(import_data("h100-baremetal-topo-m.txt"), "", 400);
  in.gpu_query = import_data("h100-nvidia-smi-q-i0.txt");  // `nvidia-smi -q -i 0`: one GPU's model for all
  const ImportedNode node = import_node(in);
  EXPECT_TRUE(has_note(node, true, "8 GPUs, H100 SXM ('NVIDIA H100 80GB HBM3'"));
  const Topology t = load_imported(node);
  expect_same_routes_and_placement(load_topology(testing::bundled("dgx-h100.xml")), t);
  EXPECT_EQ(t.vertex(*t.gpu(4).nearest_nic).name, "mlx5_6");  // mlx5_4/5 are the storage pair on socket 0
}

TEST(Import, TopoMatrixOfHgxHopperMatchesDgxH100) {
  const Topology t = load_imported(import_node(inputs(import_data("hgx-h20-topo-m.txt"), "H100 SXM", 400)));
  expect_same_routes_and_placement(load_topology(testing::bundled("dgx-h100.xml")), t);
  EXPECT_EQ(t.vertex(*t.gpu(0).nearest_nic).name, "mlx5_1");  // the legend's name for NIC0
}

TEST(Import, RocmSmiOfMi300xMatchesBundledMi300x) {
  const ImportedNode node = import_node(inputs(import_data("mi300x-rocm-smi-showtopo.txt"), "MI300X", 400));
  EXPECT_TRUE(has_note(node, true, "one xGMI link per XGMI pair"));
  EXPECT_TRUE(has_note(node, true, "one 400 Gb/s NIC per GPU"));
  expect_same_routes_and_placement(load_topology(testing::bundled("mi300x.xml")), load_imported(node));
}

TEST(Import, AzurePartialFileIsNdv5) {
  ImportInputs in = inputs(testing::azure("ndv5-topo.xml"), "H100 SXM", 400);
  in.name = "ndv5";
  const Topology t = load_imported(import_node(in));
  const TopologySummary a = summarize(load_topology(testing::bundled("ndv5.xml")));
  const TopologySummary b = summarize(t);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.vertices_by_kind.size(), b.vertices_by_kind.size());
  for (std::size_t i = 0; i < a.links_by_kind.size(); ++i) EXPECT_EQ(a.links_by_kind[i].count, b.links_by_kind[i].count);
  expect_same_routes_and_placement(load_topology(testing::bundled("ndv5.xml")), t);
}

TEST(Import, PcieBoxHasNoNvlinkAndNicsOnGpu6sSocket) {
  const ImportedNode node = import_node(inputs(import_data("pcie-8gpu-topo-m.txt"), "A100 PCIe", 100));
  EXPECT_TRUE(has_note(node, false, "no NVLinks"));
  const Topology t = load_imported(node);
  EXPECT_FALSE(t.has_nvswitch());
  EXPECT_EQ(t.route(0, 1).path_class, PathClass::Phb);  // same socket, through the CPU
  EXPECT_EQ(t.route(0, 4).path_class, PathClass::Sys);
  EXPECT_EQ(t.gpu(6).numa, 1);
  EXPECT_EQ(t.vertex(*t.gpu(6).nearest_nic).numa, 1);
}

// ibv_devinfo -vv of an HDR node (openucx/ucx#9908): the active port's 4X x 50 Gb/s; the matrix is another
// node's (the reader's check, not a machine).
TEST(Import, NicRatesFromIbvDevinfo) {
  ImportInputs in = inputs(import_data("h100-vm-topo-m.txt"), "H100 SXM");
  in.nic_query = import_data("ibv-devinfo-vv-hdr.txt");
  const ImportedNode node = import_node(in);
  EXPECT_DOUBLE_EQ(node.nic_gbps, 200);
  EXPECT_TRUE(has_note(node, false, "1 NICs: mlx5_0 200G (rates from"));
}

TEST(Import, SeveralNodesMakeACluster) {
  ImportInputs in = inputs(testing::azure("ndv5-topo.xml"), "H100 SXM", 400);
  const ImportedNode node = import_node(in);
  const std::string text = cluster_file_text(ClusterPlan{"c", "n.xml", 2, "roce", node.nic_gbps});
  EXPECT_NE(text.find("transport=\"roce\""), std::string::npos);
  EXPECT_NE(text.find("nodes=\"2\""), std::string::npos);
  EXPECT_NE(text.find("nic_speed_gbps=\"400\""), std::string::npos);
}

std::string import_error(const ImportInputs& in) {
  try {
    import_node(in);
  } catch (const DiagError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Import, RefusesDumpOfOtherGpus) {
  const std::string e = import_error(inputs(import_data("ibm-hgx-h100-dump.xml"), "A100 SXM"));
  EXPECT_NE(e.find("ibm-hgx-h100-dump.xml:10: the dump's GPU 0000:a4:00.0 is sm 90, not A100 SXM (sm 80)"), std::string::npos) << e;
}

TEST(Import, RefusesMoreNvlinksThanTheModelHas) {
  const std::string e = import_error(inputs(import_data("hgx-h20-topo-m.txt"), "A100 SXM", 400));
  EXPECT_NE(e.find("hgx-h20-topo-m.txt:2: GPU0 shows NV18; A100 SXM has at most 12 NVLinks"), std::string::npos) << e;
}

TEST(Import, NeedsAModelForAMatrix) {
  const std::string e = import_error(inputs(import_data("dgx-a100-topo-m.txt")));
  EXPECT_NE(e.find("dgx-a100-topo-m.txt:1: nvidia-smi topo -m does not name the GPU model"), std::string::npos) << e;
}

TEST(Import, NeedsNicRates) {
  const std::string e = import_error(inputs(import_data("dgx-a100-topo-m.txt"), "A100 SXM"));
  EXPECT_NE(e.find("dgx-a100-topo-m.txt:10: no rate for NIC mlx5_0"), std::string::npos) << e;
}

}  // namespace
}  // namespace ccforge::topo
