// The happens-before structure of an MSCCL algorithm has one source, ir::StepGraph: sim's lowering and
// its time floor both wire their dependencies from it. A relay in which rank 1 forwards what it
// received from rank 0 only through a cross-threadblock depid shows it: the graph holds the dependency,
// the simulated time pays both hops one after the other, and the floor, read off the same graph,
// rises above the time of the same file without the depid.
#include <gtest/gtest.h>

#include "ccforge/ir/step_graph.hpp"
#include "ccforge/sim/sim.hpp"
#include "msccl_test_algorithms.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

ir::ThreadBlock tb(int id, int send, int recv, int channel, ir::Step step) {
  return testing::threadblock(id, send, recv, channel, {step});
}

ir::Step step(ir::OpType type, ir::BufferKind src, ir::BufferKind dst) {
  ir::Step s;
  s.type = type;
  s.src_buf = src;
  s.src_off = 0;
  s.dst_buf = dst;
  s.dst_off = 0;
  s.count = 1;
  return s;
}

// Rank 0 tb 0 sends its input to rank 1 tb 0 on channel 0; rank 1 tb 1 sends that output back to rank 0
// on channel 1, after tb 0's receive when `relay` (depid 0, deps 0), at once otherwise.
ir::Algorithm two_hops(bool relay) {
  using enum ir::OpType;
  using enum ir::BufferKind;
  ir::Algorithm a = testing::simple_allreduce_skeleton(relay ? "relay" : "independent", 2, 1);
  a.gpus[0].tbs = {tb(0, 1, -1, 0, step(Send, Input, Output)), tb(1, -1, 1, 1, step(Recv, Input, Output))};
  ir::Step forward = step(Send, Output, Output);
  ir::Step arrive = step(Recv, Input, Output);
  if (relay) {
    arrive.has_dep = true;
    forward.dep_tb = 0;
    forward.dep_step = 0;
  }
  a.gpus[1].tbs = {tb(0, -1, 0, 0, arrive), tb(1, 0, -1, 1, forward)};
  return a;
}

TEST(MscclDependencies, TheGraphHoldsTheRelaysDepidAndItsConnections) {
  const ir::StepGraph graph(two_hops(true));
  ASSERT_EQ(graph.size(), 4);
  EXPECT_EQ(graph.dependee(graph.node(1, 1, 0)), graph.node(1, 0, 0));
  EXPECT_EQ(graph.matched_send(graph.node(1, 0, 0)), graph.node(0, 0, 0));
  EXPECT_EQ(graph.matched_send(graph.node(0, 1, 0)), graph.node(1, 1, 0));
  ASSERT_EQ(graph.connections().size(), 2u);
  EXPECT_EQ(graph.connections()[0].src, 0);  // ordered by (src, dst, channel)
  EXPECT_EQ(graph.connections()[1].src, 1);
  EXPECT_EQ(ir::StepGraph(two_hops(false)).dependee(graph.node(1, 1, 0)), -1);
}

TEST(MscclDependencies, LoweringAndFloorBothWaitOnTheDepid) {
  const SimParams params;
  const CallSpec call{ByteCount{256} << 10, DataType::Half};  // under one buffer slot: a single iteration
  const SimTime relay = simulate(ndv5(), two_hops(true), call, params).time;
  const SimTime independent = simulate(ndv5(), two_hops(false), call, params).time;
  EXPECT_GT(relay.us(), 1.5 * independent.us());  // the hops run one after the other
  const SimTime relay_floor = time_floors(ndv5(), two_hops(true), {call}, params).at(0);
  EXPECT_LE(relay_floor, relay);
  EXPECT_GT(relay_floor, independent);
  EXPECT_LE(time_floors(ndv5(), two_hops(false), {call}, params).at(0), independent);
}

TEST(MscclDependencies, ADepidNamingNoStepIsOneLineErrorAndNoEdge) {
  ir::Algorithm a = two_hops(true);
  a.gpus[1].tbs[1].steps[0].dep_step = 5;
  const ir::StepGraph graph(a);
  EXPECT_EQ(graph.dependee(graph.node(1, 1, 0)), ir::StepGraph::kMissing);
  EXPECT_EQ(graph.preds(graph.node(1, 1, 0)).size(), 0u);
  EXPECT_THROW(simulate(ndv5(), a, CallSpec{1024, DataType::Half}, SimParams{}), DiagError);
}

}  // namespace
}  // namespace ccforge::sim
