// The engine on hand-built task graphs: answers follow from alpha + bytes / rate.
#include "engine.hpp"

#include <gtest/gtest.h>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

constexpr double kGB = 1e9;

TEST(Engine, SingleTransferIsAlphaPlusBytesOverBandwidth) {
  // 1 GB over a 100 GB/s link after a 2 us alpha: 2 us + 10 ms.
  TaskGraph g;
  Task t;
  t.delay = SimTime::from_us(2);
  t.wire_bytes = 1e9;
  t.path = g.add_path({0});
  g.add(t);
  const auto s = run_task_graph(g, EngineLinks{{100 * kGB}, {}}, nullptr);
  EXPECT_EQ(s.makespan, SimTime::from_us(2) + SimTime::from_us(10000));
  EXPECT_EQ(s.unfinished, 0u);
}

TEST(Engine, ConcurrentFlowsShareThenSpeedUp) {
  // Flows of 1 GB and 3 GB start together on a 100 GB/s link. Shared at 50 GB/s the small one ends
  // at 20 ms, having taken 1 GB off the big one; the big one's last 2 GB then run alone at 100 GB/s:
  // 20 ms more, 40 ms in total.
  TaskGraph g;
  const PathId p = g.add_path({0});
  Task a;
  a.wire_bytes = 1e9;
  a.path = p;
  Task b = a;
  b.wire_bytes = 3e9;
  g.add(a);
  g.add(b);
  const auto s = run_task_graph(g, EngineLinks{{100 * kGB}, {}}, nullptr);
  EXPECT_NEAR(s.makespan.us(), 40000.0, 1e-3);
}

TEST(Engine, DependenciesSerialise) {
  // a -> b, each 1 us alpha + 1 MB at 1 GB/s (1000 us): 2002 us.
  TaskGraph g;
  Task t;
  t.delay = SimTime::from_us(1);
  t.wire_bytes = 1e6;
  t.path = g.add_path({0});
  const TaskId a = g.add(t);
  const TaskId b = g.add(t);
  g.depend(a, b);
  const auto s = run_task_graph(g, EngineLinks{{1 * kGB}, {}}, nullptr);
  EXPECT_NEAR(s.makespan.us(), 2002.0, 1e-3);
}

TEST(Engine, RateCapLimitsOneThreadblock) {
  // A 10 GB/s cap on a 100 GB/s link: 1 GB takes 100 ms.
  TaskGraph g;
  Task t;
  t.wire_bytes = 1e9;
  t.rate_cap = 10 * kGB;
  t.path = g.add_path({0});
  g.add(t);
  EXPECT_NEAR(run_task_graph(g, EngineLinks{{100 * kGB}, {}}, nullptr).makespan.us(), 100000.0, 1e-3);
}

TEST(Engine, CycleIsReportedNotHung) {
  TaskGraph g;
  const TaskId a = g.add(Task{});
  const TaskId b = g.add(Task{});
  g.depend(a, b);
  g.depend(b, a);
  const auto s = run_task_graph(g, EngineLinks{{}, {}}, nullptr);
  EXPECT_EQ(s.unfinished, 2u);
}

TEST(Engine, TraceRecordsSlicesAndLinkLoad) {
  Trace trace;
  TaskGraph g;
  Task t;
  t.wire_bytes = 1e6;
  t.path = g.add_path({0});
  t.track = trace.add_track("tb");
  t.label = g.add_label("send");
  g.add(t);
  const int link_track = trace.add_track("link");
  run_task_graph(g, EngineLinks{{1 * kGB}, {link_track}}, &trace);
  ASSERT_EQ(trace.slices.size(), 1u);
  EXPECT_EQ(trace.slices[0].name, "send");
  ASSERT_EQ(trace.counters.size(), 2u);  // loaded at start, idle at the end
  EXPECT_DOUBLE_EQ(trace.counters[0].value, 1.0);
  EXPECT_DOUBLE_EQ(trace.counters[1].value, 0.0);
}

}  // namespace
}  // namespace ccforge::sim
