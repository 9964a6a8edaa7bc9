// A cluster's transport: what its file names, the NICs it joins, and one-line errors for bad values.
#include "ccforge/common/diag.hpp"
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace ccforge::topo {
namespace {

using testing::bundled;

// A cluster file next to the bundled ndv5.xml (its node file), removed when the test ends.
class TransportCluster {
 public:
  explicit TransportCluster(const std::string& attributes)
      : path_(bundled("") / ("test-transport-" + std::to_string(::getpid()) + ".xml")) {
    std::ofstream(path_) << "<cluster name=\"t\" nodes=\"2\" node=\"ndv5.xml\" fabric=\"rail-optimized\" " << attributes << "/>\n";
  }
  ~TransportCluster() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string load_error(const std::string& attributes) {
  const TransportCluster c(attributes);
  try {
    load_topology(c.path());
  } catch (const DiagError& e) {
    return e.what();
  }
  return "";
}

TEST(ClusterTransport, DefaultsToIbWithTheNodesNics) {
  const Topology t = load_topology(bundled("ndv5-x2.xml"));
  EXPECT_EQ(t.transport().kind, TransportKind::Ib);
  EXPECT_TRUE(t.transport().gpudirect_rdma);
  EXPECT_EQ(t.transport().nics_per_device(), 1);
}

// p5.48xlarge: 32 x 100G EFA per node, four per GPU joined into one NCCL device of 400G.
TEST(ClusterTransport, P5JoinsFourEfaNicsPerDevice) {
  const Topology t = load_topology(bundled("p5-x2.xml"));
  EXPECT_EQ(t.transport().kind, TransportKind::Efa);
  EXPECT_EQ(t.transport().nics_per_node, 32);
  EXPECT_EQ(t.transport().nics_per_device(), 4);
  EXPECT_DOUBLE_EQ(t.gpu(0).nic_bandwidth.gbps(), Bandwidth::Gbps(400).gbps());
}

TEST(ClusterTransport, BundledClustersNameTheirTransports) {
  EXPECT_EQ(load_topology(bundled("a3mega-x2.xml")).transport().kind, TransportKind::Tcpxo);
  EXPECT_EQ(load_topology(bundled("a3ultra-x2.xml")).transport().kind, TransportKind::Roce);
  EXPECT_EQ(load_topology(bundled("a3ultra-x2.xml")).gpu(0).model->name, std::string("H200 SXM"));
  EXPECT_EQ(load_topology(bundled("ndv5-x4.xml")).num_nodes(), 4);
}

TEST(ClusterTransport, GdrOffIsKept) {
  const TransportCluster c("transport=\"socket\" gpudirect_rdma=\"off\"");
  const Topology t = load_topology(c.path());
  EXPECT_EQ(t.transport().kind, TransportKind::Socket);
  EXPECT_FALSE(t.transport().gpudirect_rdma);
}

TEST(ClusterTransport, BadValuesAreOneLineErrorsAtTheClusterLine) {
  EXPECT_NE(load_error("transport=\"ethernet\"").find(":1: unknown transport=\"ethernet\" (use ib, roce"), std::string::npos);
  EXPECT_NE(load_error("gpudirect_rdma=\"maybe\"").find("neither on nor off"), std::string::npos);
  EXPECT_NE(load_error("nics_per_node=\"12\" nic_speed_gbps=\"100\"").find("does not divide among the node's 8 NICs"),
            std::string::npos);
  EXPECT_NE(load_error("nics_per_node=\"16\"").find("nics_per_node without nic_speed_gbps"), std::string::npos);
  EXPECT_NE(load_error("nics_per_node=\"0\" nic_speed_gbps=\"100\"").find("out of range"), std::string::npos);
  EXPECT_NE(load_error("gpus_per_nic=\"2\"").find("gpus_per_nic=\"2\" disagrees with 8 GPUs over 8 NICs"), std::string::npos);
}

}  // namespace
}  // namespace ccforge::topo
