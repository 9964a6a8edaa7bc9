// First half of AlgorithmBuilder::build(): resolve in-place aliasing, decide which receive+send pairs
// fuse into rcs/rrcs, and lay out the threadblocks of every rank. builder.cpp then emits the steps.
#pragma once

#include <array>
#include <vector>

#include "ccforge/ir/builder.hpp"

namespace ccforge::ir {

struct PlannedOp {
  OpType kind;      // Copy, Reduce, Send or RecvReduceCopy, as recorded
  ChunkRef src;     // physical (after aliasing)
  ChunkRef dst;     // physical
  int channel;  // local ops: the channel of the transfer that next uses the result (their tb's channel)
  int fused_send = -1;          // index of the later transfer this op's receive forwards (rcs/rrcs), or -1
  bool sent_by_fusion = false;  // this transfer's sending half was emitted by an earlier fused receive
  bool result_unused = false;   // fused reducing receive into scratch nobody reads again: rrs, no store
};

struct TbKey {
  int send_peer;
  int recv_peer;
  int channel;
  auto operator<=>(const TbKey&) const = default;
};

struct RankLayout {
  std::vector<TbKey> tbs;  // sorted by (send, recv, channel), index == tb id
  std::vector<std::array<int, 3>> receivers;  // (recv peer, channel, tb) of the receiving tbs, sorted
  int tb_sending(int peer, int channel) const;
  int tb_receiving(int peer, int channel) const;
  int tb_local(int channel) const;
};

struct BuildPlan {
  std::vector<PlannedOp> ops;
  std::vector<RankLayout> ranks;
  std::vector<int> input_chunks, output_chunks, scratch_chunks;  // physical, per rank
};

BuildPlan plan_build(const BuilderSpec& spec, const std::vector<PlannedOp>& recorded);

}  // namespace ccforge::ir
