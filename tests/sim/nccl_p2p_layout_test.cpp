// NCCL's p2p kernel layout (p2p_layout.hpp): which channels each round of the p2p schedule runs on,
// how many send/recv pairs share a channel's batch and the warps each pair gets, against the values
// NCCL's source gives (v2.26.2-1 and v2.28.7-1 src/include/channel.h, src/init.cc, src/device/sendrecv.h),
// and what that does to an alltoall.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "nccl_lowering.hpp"
#include "p2p_layout.hpp"
#include "topology_cache.hpp"

namespace ccforge::sim {
namespace {

// sendrecv.h: 20 warps split evenly among the batch's pairs; a pair of n > 4 warps receives with
// (n - 1) / 2 and sends with one more, of n <= 4 both get n / 2.
TEST(NcclP2pLayout, WarpsPerPairFollowSendrecvH) {
  const std::map<int, std::pair<int, int>> expected = {{1, {10, 9}}, {2, {5, 4}}, {3, {3, 2}}, {4, {3, 2}}, {5, {2, 2}}, {8, {1, 1}}};
  for (const auto& [works, warps] : expected) {
    EXPECT_EQ(nccl::p2p_warps(works).send, warps.first) << works;
    EXPECT_EQ(nccl::p2p_warps(works).recv, warps.second) << works;
  }
}

// One node, 32 p2p channels: from 2.28 a round's base channel is the round bit-reversed (0, 16, 8, 24,
// 4, 20, 12, 28) and its parts follow it; from 2.22 to 2.27 the base is the round and part k sits k
// bit-reversed past it (r, r + 16, r + 8, r + 24). Either way 8 rounds of 4 parts fill the 32 channels
// once; at 32 parts every channel holds all 8 rounds' pairs.
TEST(NcclP2pLayout, OneNodeRoundsSpreadOverChannels) {
  const topo::Topology& node = load("dgx-h100.xml");
  const nccl::P2pLayout v228(node, nccl_version_of(2.28), 32, 4);
  const int reversed[] = {0, 16, 8, 24, 4, 20, 12, 28};
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(v228.base(r), reversed[r]);
    EXPECT_EQ(v228.channel(r, 3), reversed[r] + 3);
  }
  for (int dst = 1; dst < 8; ++dst) {
    EXPECT_EQ(v228.round(0, dst), dst);  // round k sends to rank + k (v2.28.7-1 init.cc, one group of 8)
    for (int warps : v228.recv_warps(0, dst)) EXPECT_EQ(warps, 9);  // one pair per channel
  }
  const nccl::P2pLayout v226(node, nccl_version_of(2.26), 32, 4);
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(v226.base(r), r);
    EXPECT_EQ(v226.channel(r, 1), r + 16);
    EXPECT_EQ(v226.channel(r, 3), r + 24);
  }
  // 2.26 visits the deltas in the quadratic order 0, 1, 3, 6, 2, 7, 5, 4: delta 6 is round 3.
  EXPECT_EQ(v226.round(0, 6), 3);
  for (int warps : v226.recv_warps(0, 6)) EXPECT_EQ(warps, 9);
  const nccl::P2pLayout full(node, nccl_version_of(2.28), 32, 32);
  for (int warps : full.recv_warps(0, 5)) EXPECT_EQ(warps, 1);
  const nccl::P2pLayout two(node, nccl_version_of(2.26), 32, 8);
  for (int warps : two.recv_warps(0, 5)) EXPECT_EQ(warps, 4);  // 2 pairs a channel: 5 / 4 warps
}

// Two nodes of 8 (16 ranks, 2 channels per peer): a group delta's 8 rounds share one base, stepping per
// batch epoch (channel.h); from 2.28 bit-reversed, so the node's own rounds run on channels 0-1 and
// the other node's on 16-17, 8 pairs a batch: one receiving warp each.
TEST(NcclP2pLayout, AcrossNodesAGroupsRoundsShareTwoChannels) {
  const topo::Topology& x2 = load("ndv5-x2.xml");
  const nccl::P2pLayout v228(x2, nccl_version_of(2.28), 32, 2);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(v228.base(r), 0);
  for (int r = 8; r < 16; ++r) EXPECT_EQ(v228.base(r), 16);
  EXPECT_EQ(v228.round(0, 8), 8);   // the other node's same local index: group delta 1, delta 0
  EXPECT_EQ(v228.round(3, 9), 14);  // delta (9 - 8) - 3 = 6 inside the group
  for (int dst : {1, 7, 8, 15})
    for (int warps : v228.recv_warps(0, dst)) EXPECT_EQ(warps, 1);
  // Up to 2.27 the base is not reversed, the part is: the other node's rounds on channels 1 and 17.
  const nccl::P2pLayout v226(x2, nccl_version_of(2.26), 32, 2);
  EXPECT_EQ(v226.channel(8, 0), 1);
  EXPECT_EQ(v226.channel(8, 1), 17);
  for (int warps : v226.recv_warps(0, 9)) EXPECT_EQ(warps, 1);
}

// Up to 2.21 each part runs alone on its channel (no batches of pairs): 9 receiving warps.
TEST(NcclP2pLayout, Before2_22EachPartHasItsChannel) {
  const nccl::P2pLayout v218(load("dgx-h100.xml"), nccl_version_of(2.18), 32, 32);
  for (int warps : v218.recv_warps(0, 3)) EXPECT_EQ(warps, 9);
}

// NCCL_NCHANNELS_PER_NET_PEER unset (paths.cc ncclTopoGetNchannels, from 2.20): 2 channels per network
// peer, halved while 2 x ranks exceeds 4 x the p2p channels (32): 32 ranks keep 2, 128 get 1; up to
// 2.19 always 2. Every peer then gets the fewest any peer allows (ncclTopoComputeP2pChannels).
TEST(NcclP2pLayout, ChannelsPerNetworkPeerFollowNcclAtScale) {
  const auto parts = [](const std::string& topo, double version) {
    const nccl::NcclCall call{ir::Collective::AllToAll, 0.0, ir::Protocol::Simple, 32};
    return nccl::p2p_op(call, load(topo), nccl_version_of(version), 64.0 * 1024 * 1024).parts;
  };
  EXPECT_EQ(parts("ndv5-x4.xml", 2.28), 2);
  EXPECT_EQ(parts("ndv5-x16.xml", 2.28), 1);
  EXPECT_EQ(parts("ndv5-x16.xml", 2.18), 2);
}

// PXN (NCCL_PXN_DISABLE 0): a send to a GPU of another node first crosses NVLink to the local GPU on the
// receiver's rail and leaves through that GPU's NIC (a network route whose first hop is NVLink).
TEST(NcclP2pLayout, SendsAcrossNodesRelayThroughTheReceiversRail) {
  const topo::Topology& x2 = load("ndv5-x2.xml");
  const topo::Route& r = x2.route(0, 8 + 3);
  EXPECT_EQ(r.path_class, topo::PathClass::Net);
  const topo::Link& first = x2.link(r.links.front());
  EXPECT_TRUE(first.kind == topo::LinkKind::NvLink || first.kind == topo::LinkKind::NvSwitch);
  const auto rail_nic = x2.gpu(3).nearest_nic;
  ASSERT_TRUE(rail_nic.has_value());
  EXPECT_TRUE(std::any_of(r.links.begin(), r.links.end(), [&](LinkId l) { return x2.link(l).src == *rail_nic; }));
}

double alltoall_us(const std::string& topo, double version, ByteCount bytes) {
  SimParams params;
  params.constants.nccl_version = nccl_version_of(version);
  return simulate_nccl(load(topo), ir::Collective::AllToAll, CallSpec{bytes, DataType::Double}, NcclRequest{}, params).time.us();
}

// The layout sets the rate across nodes: on two nodes of 8 from 2.22 a node's 8 rounds share 2
// channels, one receiving warp a pair, where up to 2.21 each part had a channel's 9; a 4 MB alltoall
// (256 KiB a peer) is bound by those warps, not by the NICs.
TEST(NcclP2pLayout, AcrossNodesBatchedPairsSlowAMidSizeAlltoall) {
  const ByteCount mb4 = 4ull << 20;
  EXPECT_GT(alltoall_us("ndv5-x2.xml", 2.28, mb4), 1.2 * alltoall_us("ndv5-x2.xml", 2.21, mb4));
}

// Alltoall's sends to all 7 NVLink peers at once reach sim.p2p.nvlink_share of the GPU's NVLink rate
// (18 x 25 GB/s x SM90_NVLINK_BW 20.6 / 25): at 16 GB busbw (7/8 of the algbw) is that.
TEST(NcclP2pLayout, AlltoallReachesItsNvlinkShare) {
  const ByteCount gb16 = 16ull << 30;
  const double busbw = static_cast<double>(gb16) / alltoall_us("dgx-h100.xml", 2.28, gb16) * 1e-3 * 7.0 / 8.0;
  const double share = SimParams{}.constants.of(topo::GpuArch::Hopper).p2p_nvlink_share.value();
  EXPECT_NEAR(busbw, share * 18 * 20.6, 0.01 * share * 18 * 20.6);
}

}  // namespace
}  // namespace ccforge::sim
