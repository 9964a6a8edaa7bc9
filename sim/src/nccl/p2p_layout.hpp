// Where NCCL's p2p kernel runs each send of a grouped send/recv (alltoall, gather, scatter): the
// schedule's round of each peer, the p2p channels of the round's parts, and how many warps each
// send/recv pair gets where several rounds share a channel's work batch (NCCL 2.22 and later).
#pragma once

#include <vector>

#include "ccforge/sim/constants.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::sim::nccl {

// A send/recv pair's warps in a work batch of `works` pairs (NVIDIA/nccl v2.28.7-1
// src/device/sendrecv.h RunWorkBatch::run: NCCL_MAX_NTHREADS 640 = 20 warps split evenly, receives
// (n - 1) / 2 of a pair's n warps, sends one more; from 4 warps down both get n / 2).
struct P2pWarps {
  int send = 0;
  int recv = 0;
};
P2pWarps p2p_warps(int works);

class P2pLayout {
 public:
  // `p2p_channels`: comm->p2pnChannels (a power of two); `parts`: the channels each send runs on.
  P2pLayout(const topo::Topology& topo, NcclVersion version, int p2p_channels, int parts);

  // The schedule's round of the send from `src` to `dst` (init.cc ncclP2pSchedule).
  int round(int src, int dst) const;
  // The first channel of a round's parts (channel.h ncclP2pChannelBaseForRound).
  int base(int round) const;
  // The channel of a round's part (device.h ncclP2pChannelForPart).
  int channel(int round, int part) const;
  // Receiving warps of each part of the send from `src` to `dst`, by the works its channel's batch holds.
  std::vector<int> recv_warps(int src, int dst) const;

 private:
  int nranks_;
  int group_size_;  // ranks of one schedule group
  int channels_;
  int parts_;
  bool reversed_;  // from 2.28: the round's base bit-reversed, its parts contiguous
  bool batched_;   // from 2.22: works of a channel's batch share its warps
  bool multi_node_;
  std::vector<int> group_ordinal_;  // group delta -> its place in the schedule's quadratic order
  std::vector<int> local_ordinal_;  // delta inside a group -> its place
  std::vector<int> works_;          // per channel and batch epoch: works sharing it
};

}  // namespace ccforge::sim::nccl
