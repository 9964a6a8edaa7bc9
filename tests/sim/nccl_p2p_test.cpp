// NCCL's p2p kernel as alltoall runs it (p2p.cpp): how one send is cut into parts (channels) and chunks,
// by NCCL's own rules, and what the FIFO's copy-out costs.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "nccl_lowering.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name)).first;
  return it->second;
}

nccl::P2pOp op(const std::string& topo, double version, double bytes, int nchannels = 32) {
  const nccl::NcclCall call{ir::Collective::AllToAll, bytes * load(topo).num_gpus(), ir::Protocol::Simple, nchannels};
  return nccl::p2p_op(call, load(topo), nccl_version_of(version), bytes);
}

constexpr double kKiB = 1024, kMiB = 1024 * 1024;

// One NVSwitch node, 32 p2p channels: NCCL gives each of the 8 peers 32 / 8 = 4 channels (enqueue.cc
// nChannelsMin), parts of at least 512 KiB / 8, at most 512 KiB x 32, doubling the parts past that.
TEST(NcclP2p, OneNvswitchNodeSplitsAsNcclDoes) {
  for (double version : {2.18, 2.26}) {
    EXPECT_EQ(op("dgx-h100.xml", version, 4 * kMiB).parts, 4);
    EXPECT_EQ(op("dgx-h100.xml", version, 128 * kMiB).parts, 8);  // 32 MiB parts halved to 16
    EXPECT_DOUBLE_EQ(op("dgx-h100.xml", version, 4 * kMiB).step, 512 * kKiB);  // NCCL_P2P_NVL_CHUNKSIZE
    EXPECT_DOUBLE_EQ(op("dgx-h100.xml", version, 4 * kMiB).part_bytes, kMiB);
  }
  // NCCL_P2P_LL_THRESHOLD 16 KiB: up to 2.21 per part (16 KiB is one part of Simple's minimum), from 2.22
  // per channel the op may use (32 x 16 KiB), then parts of LL's 64 KiB step / 8.
  EXPECT_EQ(op("dgx-h100.xml", 2.18, 16 * kKiB).proto, ir::Protocol::LL);
  EXPECT_EQ(op("dgx-h100.xml", 2.18, 16 * kKiB).parts, 1);
  EXPECT_EQ(op("dgx-h100.xml", 2.18, 32 * kKiB).proto, ir::Protocol::Simple);
  EXPECT_EQ(op("dgx-h100.xml", 2.26, 16 * kKiB).parts, 2);
  EXPECT_EQ(op("dgx-h100.xml", 2.26, 512 * kKiB).proto, ir::Protocol::LL);
  EXPECT_EQ(op("dgx-h100.xml", 2.26, 513 * kKiB).proto, ir::Protocol::Simple);
  // Up to 2.19 a node caps an op's channels at 4 x 32 / 8 = 16 (no channel with 8+ operations); from
  // 2.20 at the peer's 32.
  EXPECT_EQ(op("dgx-h100.xml", 2.18, 1024 * kMiB).parts, 16);
  EXPECT_EQ(op("dgx-h100.xml", 2.26, 1024 * kMiB).parts, 32);
}

// A node without an NVSwitch (DGX-1's hybrid cube mesh: some pairs one NVLink, some none) gives 2
// channels per peer (paths.cc ncclTopoGetNchannels).
TEST(NcclP2p, NodesWithoutAnNvswitchGetTwoChannelsPerPeer) {
  EXPECT_EQ(op("dgx1-v100.xml", 2.18, 4 * kMiB).parts, 2);
}

// Two nodes (16 ranks): NCCL_P2P_NET_CHUNKSIZE steps and 2 channels per network peer (so a 1 MiB send
// runs as 2 parts of 4 chunks, its parts capped at the peer's channels); from 2.22 a network op under 8
// steps halves its chunk, under one quarters it.
TEST(NcclP2p, AcrossNodesPartsAreAStep) {
  const nccl::P2pOp big = op("ndv5-x2.xml", 2.26, 1 * kMiB);
  EXPECT_DOUBLE_EQ(big.step, 128 * kKiB);
  EXPECT_EQ(big.parts, 2);
  EXPECT_DOUBLE_EQ(big.part_bytes, 512 * kKiB);
  EXPECT_DOUBLE_EQ(big.chunk, 128 * kKiB);
  EXPECT_DOUBLE_EQ(op("ndv5-x2.xml", 2.26, 512 * kKiB).chunk, 64 * kKiB);
  EXPECT_DOUBLE_EQ(op("ndv5-x2.xml", 2.26, 64 * kKiB).chunk, 32 * kKiB);
  EXPECT_EQ(op("ndv5-x2.xml", 2.26, 64 * kKiB).parts, 1);
  EXPECT_DOUBLE_EQ(op("ndv5-x2.xml", 2.18, 64 * kKiB).chunk, 128 * kKiB);
}

// GPUDirect-TCPXO's NCCL profile sets NCCL_P2P_NET_CHUNKSIZE=524288 (sim/src/net/transports.cpp): its
// network steps are 512 KiB (a 4 MiB send, 8 steps, moves whole steps), IB keeps NCCL's 128 KiB.
TEST(NcclP2p, TcpxoProfileSetsTheNetworkStep) {
  const nccl::P2pOp tcpxo = op("a3mega-x2.xml", 2.21, 4 * kMiB);
  EXPECT_DOUBLE_EQ(tcpxo.step, 512 * kKiB);
  EXPECT_DOUBLE_EQ(tcpxo.chunk, 512 * kKiB);
  EXPECT_DOUBLE_EQ(op("ndv5-x2.xml", 2.21, 4 * kMiB).step, 128 * kKiB);
}

// The receiver's copy of the last chunk out of the FIFO trails the part: a mid-size alltoall costs more
// than its bytes over NVLink alone, and the trailing copy is at most one chunk's.
TEST(NcclP2p, LastChunksCopyOutTrailsTheTransfer) {
  const SimParams params;
  const NcclRequest request{};
  const double t32 = simulate_nccl(load("dgx-h100.xml"), ir::Collective::AllToAll, CallSpec{32 << 20, DataType::Float},
                                   request, params).time.us();
  const double t64 = simulate_nccl(load("dgx-h100.xml"), ir::Collective::AllToAll, CallSpec{64 << 20, DataType::Float},
                                   request, params).time.us();
  // Doubling the size adds the bytes' time only: the tail and the launch are paid once.
  const double per_32mib = t64 - t32;
  EXPECT_GT(t32 - per_32mib, 15.0);  // launch + alpha + one 512 KiB copy-out at 9 of 20 warps' rate
  EXPECT_LT(t32 - per_32mib, 40.0);
}

}  // namespace
}  // namespace ccforge::sim
