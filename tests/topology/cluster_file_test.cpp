// Cluster expansion: counts, rank numbering and the fabric between nodes.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace ccforge::topo {
namespace {

using testing::bundled;

int count(const Topology& t, VertexKind kind) {
  int n = 0;
  for (const Vertex& v : t.vertices()) n += v.kind == kind;
  return n;
}

// A cluster file next to the bundled ndv5.xml, removed when the test ends.
class TempCluster {
 public:
  explicit TempCluster(const std::string& attributes)
      : path_(bundled("") / ("test-cluster-" + std::to_string(::getpid()) + ".xml")) {
    std::ofstream(path_) << "<cluster name=\"t\" node=\"ndv5.xml\" " << attributes << "/>\n";
  }
  ~TempCluster() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(ClusterFile, Ndv5X128Has1024GpusIn128Nodes) {
  const Topology t = load_topology(bundled("ndv5-x128.xml"));
  EXPECT_EQ(t.num_gpus(), 1024);
  EXPECT_EQ(t.num_nodes(), 128);
  EXPECT_EQ(t.gpus_per_node(), 8);
  EXPECT_EQ(count(t, VertexKind::Nic), 1024);
  EXPECT_EQ(count(t, VertexKind::NvSwitch), 128);
  // 64-port leaves split 32 down / 32 up: 128 nodes need 4 leaves per rail, 8 rails; 32 spines.
  EXPECT_EQ(count(t, VertexKind::NetSwitch), 8 * 4 + 32);
}

// The bundled 16,384-GPU cluster (its comment derives the tiers): each rail's 2048 NICs fill 64 leaves
// of 32 down-ports, 8 rails; 32 spines.
TEST(ClusterFile, Ndv5X2048Has16384GpusIn2048Nodes) {
  const Topology t = load_topology(bundled("ndv5-x2048.xml"));
  EXPECT_EQ(t.num_gpus(), 16384);
  EXPECT_EQ(t.num_nodes(), 2048);
  EXPECT_EQ(count(t, VertexKind::Nic), 16384);
  EXPECT_EQ(count(t, VertexKind::NetSwitch), 8 * 64 + 32);
  EXPECT_EQ(t.route(0, 16384 - 8).path_class, PathClass::Net);  // node 0 to node 2047, same rail
}

TEST(ClusterFile, RanksAreNodeMajor) {
  const Topology t = load_topology(bundled("ndv5-x16.xml"));
  EXPECT_EQ(t.num_gpus(), 128);
  for (int r = 0; r < t.num_gpus(); ++r) {
    EXPECT_EQ(t.gpu(r).rank, r);
    EXPECT_EQ(t.gpu(r).node, r / 8);
    EXPECT_EQ(t.gpu(r).local_index, r % 8);
    EXPECT_EQ(t.vertex(t.gpu(r).vertex).node, r / 8);
  }
}

TEST(ClusterFile, SameRailPairsMeetInOneLeafAt400G) {
  const Topology t = load_topology(bundled("ndv5-x2.xml"));
  EXPECT_EQ(t.num_gpus(), 16);
  const Route& r = t.route(0, 8);  // GPU 0 of node 0 -> GPU 0 of node 1, both on rail 0
  EXPECT_EQ(r.path_class, PathClass::Net);
  EXPECT_DOUBLE_EQ(r.bottleneck.gbps(), 50.0);
  int switches = 0;
  for (LinkId id : r.links) switches += t.vertex(t.link(id).dst).kind == VertexKind::NetSwitch;
  EXPECT_EQ(switches, 1);
  EXPECT_EQ(t.route(0, 1).path_class, PathClass::Nvl);  // still NVSwitch inside a node
}

TEST(ClusterFile, FatTreeFillsLeavesInNicOrderAndOversubscriptionCutsSpines) {
  const TempCluster c("nodes=\"16\" fabric=\"fat-tree\" switch_ports=\"64\" oversubscription=\"3\"");
  const Topology t = load_topology(c.path());
  // 48 down / 16 up ports per leaf: 128 NICs fill 3 leaves (48, 48, 32); 16 spines.
  EXPECT_EQ(count(t, VertexKind::NetSwitch), 3 + 16);
}

TEST(ClusterFile, OneLeafNeedsNoSpines) {
  const TempCluster c("nodes=\"2\" fabric=\"fat-tree\"");
  const Topology t = load_topology(c.path());
  EXPECT_EQ(count(t, VertexKind::NetSwitch), 1);  // 16 NICs fit one 32-port-down leaf
  EXPECT_EQ(t.route(0, 9).path_class, PathClass::Net);
}

TEST(ClusterFile, NicSpeedCapsTheNicLinks) {
  const TempCluster c("nodes=\"2\" fabric=\"rail-optimized\" nic_speed_gbps=\"200\"");
  const Topology t = load_topology(c.path());
  EXPECT_DOUBLE_EQ(t.route(0, 8).bottleneck.gbps(), 25.0);
}

TEST(ClusterFile, Handles2048Nodes) {
  const TempCluster c("nodes=\"2048\" fabric=\"rail-optimized\"");
  const Topology t = load_topology(c.path());
  EXPECT_EQ(t.num_gpus(), 2048 * 8);
  EXPECT_EQ(t.route(0, 2048 * 8 - 1).path_class, PathClass::Net);
}

}  // namespace
}  // namespace ccforge::topo
