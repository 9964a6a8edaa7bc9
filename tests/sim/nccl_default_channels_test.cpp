// NCCL's default channel count (no NCCL_MIN/MAX_NCHANNELS) on every bundled single-node topology, at
// 2.18 and 2.28 and where a version's search constants change it. The derivation of each number is in
// sim/src/nccl/default_channels.cpp; here each expected value is NCCL's search worked by hand.
#include <gtest/gtest.h>

#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/topology/topology.hpp"
#include "default_channels.hpp"
#include "source_dir.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {
namespace {

topo::Topology load(const std::string& name) {
  return topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name);
}

int channels(const std::string& topology, double version) {
  return default_nchannels(load(topology), *tuning_tables_for(nccl_version_of(version)));
}

TEST(NcclDefaultChannels, H100NvSwitch) {
  // 6 rings at 60 GB/s over an 18-NVLink port, doubled by the search and again by ncclTopoPostset.
  for (double v : {2.18, 2.21, 2.26, 2.28}) {
    EXPECT_EQ(channels("ndv5.xml", v), 24) << v;
    EXPECT_EQ(channels("dgx-h100.xml", v), 24) << v;
  }
}

TEST(NcclDefaultChannels, H100NvlsGraphPullsFromEveryGpu) {
  // One channel per GPU (min = max = 8 without NICs); each GPU's port carries its 8 channels and its own
  // head's twice: 9 x 40 = 360 fits 2.18's 18 x 20 and 2.19+'s 18 x 20.6 GB/s, 9 x 50 or 60 does not.
  for (double v : {2.18, 2.21, 2.26, 2.28}) {
    const SearchedGraphs g = searched_graphs(load("dgx-h100.xml"), *tuning_tables_for(nccl_version_of(v)));
    EXPECT_EQ(g.nvls_channels, 8) << v;
    EXPECT_DOUBLE_EQ(g.nvls_speed, 40.0) << v;
  }
  // No NVLS graph without NVSwitch, on Ampere, or across nodes (NVLSTree takes its heads' NICs).
  for (const char* t : {"ndv4.xml", "dgx1-v100.xml", "ndv5-x2.xml"})
    EXPECT_EQ(searched_graphs(load(t), *tuning_tables_for(nccl_version_of(2.28))).nvls_channels, 0) << t;
}

TEST(NcclDefaultChannels, A100NvSwitch) {
  // 6 rings at 40 GB/s over 12 NVLinks x 20, doubled twice.
  EXPECT_EQ(channels("ndv4.xml", 2.18), 24);
  EXPECT_EQ(channels("ndv4.xml", 2.28), 24);
}

TEST(NcclDefaultChannels, V100CubeMesh) {
  // 6 rings at one NVLink's 20 GB/s, not doubled below 25 GB/s; doubled by ncclTopoPostset.
  EXPECT_EQ(channels("dgx1-v100.xml", 2.18), 12);
  EXPECT_EQ(channels("dgx1-v100.xml", 2.28), 12);
}

TEST(NcclDefaultChannels, PcieAcrossTwoAmdSockets) {
  // 2.18: 2 rings at 12 GB/s fill the 24 GB/s Gen4 x16 links; 2.19+ caps the socket link at AMD_BW 16
  // GB/s, which holds one ring at 15.
  EXPECT_EQ(channels("pcie-4gpu.xml", 2.18), 4);
  EXPECT_EQ(channels("pcie-4gpu.xml", 2.21), 2);
  EXPECT_EQ(channels("pcie-4gpu.xml", 2.28), 2);
}

TEST(NcclDefaultChannels, TwoH100NodesOverNdr) {
  // 8 rings at 45 GB/s, one per NDR NIC (the GPU-to-NIC path is PCIe Gen5 x16 at NCCL's 48 GB/s); not
  // doubled (sm90 below 50 GB/s), x2 by ncclTopoPostset; 45 is not above 45 for the multi-node x2.
  for (double v : {2.18, 2.26, 2.28}) EXPECT_EQ(channels("ndv5-x2.xml", v), 16) << v;
}

TEST(NcclDefaultChannels, MemoizedPerTopology) {
  const topo::Topology t = load("ndv5.xml");
  EXPECT_EQ(default_nchannels(t, *tuning_tables_for(nccl_version_of(2.28))), default_nchannels(t, *tuning_tables_for(nccl_version_of(2.28))));
  EXPECT_EQ(default_nchannels(load("pcie-4gpu.xml"), *tuning_tables_for(nccl_version_of(2.18))), 4);  // not another's entry
}

TEST(NcclDefaultChannels, NotDerivedIsAClearError) {
  EXPECT_THROW(channels("mi300x.xml", 2.28), DiagError);  // RCCL
}

}  // namespace
}  // namespace ccforge::sim::nccl
