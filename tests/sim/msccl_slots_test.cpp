// Connection buffer slots as msccl-executor-nccl uses them: every primitive call advances its connection
// by a whole tile's steps (Simple: 2 slices of 2 steps, empty ones included; LL/LL128: 1), and a step of
// cnt chunks is ceil(cnt / maxAllowedCount) calls. A Simple sender below one tile per chunk therefore
// has at most 2 calls in flight on a connection, whatever their size.
#include <gtest/gtest.h>

#include "ccforge/ir/executor_facts.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/sim/sim.hpp"
#include "msccl_lowering.hpp"
#include "msccl_test_algorithms.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

constexpr ByteCount KiB = 1024;
constexpr ByteCount MiB = 1024 * KiB;

TEST(MscclSlots, SimpleCallsHoldATilesStepsWhateverTheyCarry) {
  using enum ir::Protocol;
  // At a tile or more per chunk every lowered iteration (one 512 KiB step) holds one slot per chunk.
  EXPECT_EQ(msccl_send_slots(Simple, 4 * MiB, 1), 1);
  EXPECT_EQ(msccl_send_slots(Simple, 2 * MiB, 3), 3);
  // Below a tile: one call of 4 steps spread over the steps the chunk spans.
  EXPECT_EQ(msccl_send_slots(Simple, 128 * KiB, 1), 4);
  EXPECT_EQ(msccl_send_slots(Simple, 512 * KiB, 1), 4);
  EXPECT_EQ(msccl_send_slots(Simple, 1 * MiB, 1), 2);
  // maxAllowedCount = 2 MiB / 128 KiB = 16 chunks share one call; 40 chunks are 3 calls, capped at 8.
  EXPECT_EQ(ir::max_allowed_count(Simple, 128 * KiB), 16);
  EXPECT_EQ(msccl_send_slots(Simple, 128 * KiB, 16), 4);
  EXPECT_EQ(msccl_send_slots(Simple, 128 * KiB, 17), 8);
  EXPECT_EQ(msccl_send_slots(Simple, 128 * KiB, 40), 8);
}

TEST(MscclSlots, LLCallsHoldOneStep) {
  using enum ir::Protocol;
  EXPECT_EQ(ir::max_allowed_count(LL, 1 * KiB), 32);  // a 32 KiB LL tile
  EXPECT_EQ(msccl_send_slots(LL, 1 * KiB, 3), 1);
  EXPECT_EQ(msccl_send_slots(LL, 64 * KiB, 3), 3);
  EXPECT_EQ(msccl_send_slots(LL128, 64 * KiB, 8), 1);  // 576,000 B tile: 8 chunks a call
  EXPECT_EQ(msccl_send_slots(LL128, 64 * KiB, 9), 2);
}

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

ir::Step step(ir::OpType type, int off, int count, int dep_tb = -1) {
  ir::Step s;
  s.type = type;
  s.src_buf = s.dst_buf = ir::BufferKind::Output;
  s.src_off = s.dst_off = off;
  s.count = count;
  s.dep_tb = dep_tb;
  s.dep_step = dep_tb >= 0 ? 0 : -1;
  return s;
}

// Rank 0 tb 0 sends `sends` single chunks to rank 1, whose receiving tb 0 takes the first only after
// tb 1 has received 7 chunks from rank 2 (a depid). Rank 0 tb 1 then sends 7 chunks to rank 3 after
// the last of tb 0's sends. With 2 sends both fit in the connection's slots; a third Simple call must
// wait until rank 1 has consumed the first, i.e. after the long transfer from rank 2.
ir::Algorithm held_receiver(int sends) {
  using enum ir::OpType;
  using testing::threadblock;
  ir::Algorithm a = testing::simple_allreduce_skeleton("held_receiver", 2, 8);
  std::vector<ir::Step> out, in;
  for (int k = 0; k < sends; ++k) {
    out.push_back(step(Send, k, 1));
    in.push_back(step(Recv, k, 1, k == 0 ? 1 : -1));
  }
  out.back().has_dep = true;
  ir::Step after_sends = step(Send, 0, 7);
  after_sends.dep_tb = 0;
  after_sends.dep_step = sends - 1;
  ir::Step long_receive = step(Recv, 0, 7);
  long_receive.has_dep = true;
  a.gpus[0].tbs = {threadblock(0, 1, -1, 0, out), threadblock(1, 3, -1, 1, {after_sends})};
  a.gpus[1].tbs = {threadblock(0, -1, 0, 0, in), threadblock(1, -1, 2, 1, {long_receive})};
  a.gpus[2].tbs = {threadblock(0, 1, -1, 1, {step(Send, 0, 7)})};
  a.gpus[3].tbs = {threadblock(0, -1, 0, 1, {step(Recv, 0, 7)})};
  return a;
}

TEST(MscclSlots, AThirdSubTileSimpleCallWaitsForTheReceiversFirst) {
  const CallSpec call{8 * 256 * KiB, DataType::Half};  // 256 KiB chunks: one call of 4 slots each
  const SimParams params;
  const double two = simulate(ndv5(), held_receiver(2), call, params).time.us();
  const double three = simulate(ndv5(), held_receiver(3), call, params).time.us();
  // Without the slot limit the third send adds one 256 KiB send (4.4 us at 60 GB/s plus its 3.3 us
  // alpha); with it rank 0 tb 1 starts only after the 1.75 MiB transfer into rank 1 (30.6 us at 60 GB/s).
  EXPECT_GT(three - two, 20.0) << "two sends " << two << " us, three " << three << " us";
}

}  // namespace
}  // namespace ccforge::sim
