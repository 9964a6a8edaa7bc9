#include "ccforge/validate/charts.hpp"

#include <gtest/gtest.h>

#include "source_dir.hpp"

namespace ccforge::validate {
namespace {

TEST(ModelErrorCharts, MeasuredAndSimulatedPerAlgorithmPerCollective) {
  SweepResult sweep{"cuda", 8, {}, {}};
  sweep.runs.push_back({"allreduce", "NCCL", "", "", 1 << 20, 1 << 19, "half", "sum", false, 31.94, 0, 0, 0, ""});
  sweep.runs.push_back({"allreduce", "NCCL", "", "", 1 << 21, 1 << 20, "half", "sum", false, 45.0, 0, 0, 0, ""});
  sweep.runs.push_back({"allreduce", "NCCL", "", "", 1 << 22, 1 << 21, "half", "sum", false, 3.0, 0, 0, -1, "wrong"});
  sweep.runs.push_back({"allgather", "NCCL", "", "", 1 << 20, 1 << 19, "half", "none", false, 20.0, 0, 0, 0, ""});
  const auto topology = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  const sim::SimParams params;
  const auto charts = model_error_charts(sweep, {}, topology, params);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].first, "allgather");
  const plot::Chart& allreduce = charts[1].second;
  ASSERT_EQ(allreduce.series.size(), 2u);
  EXPECT_EQ(allreduce.series[0].label, "NCCL measured");
  EXPECT_EQ(allreduce.series[0].y, (std::vector<double>{31.94, 45.0}));  // the wrong run is left out
  EXPECT_EQ(allreduce.series[1].label, "NCCL simulated");
  EXPECT_DOUBLE_EQ(allreduce.series[1].y[0], simulated_us(topology, params, sweep.runs[0], {}));
  EXPECT_TRUE(allreduce.log_y);
}

TEST(CalibrationChart, ErrorsInPercentBeforeAndAfterFittedAndHeldOut) {
  CalibrationResult r;
  r.points.push_back({"allreduce", "NCCL", 4096, 10.0, 12.0, 10.5, false});
  r.points.push_back({"allreduce", "NCCL", 1024, 10.0, 8.0, 9.0, true});
  const plot::Chart c = calibration_chart(r, "t");
  ASSERT_EQ(c.series.size(), 4u);
  EXPECT_EQ(c.series[0].label, "before");
  EXPECT_NEAR(c.series[0].y[0], 20.0, 1e-9);
  EXPECT_EQ(c.series[1].label, "fitted");
  EXPECT_NEAR(c.series[1].y[0], 5.0, 1e-9);
  EXPECT_EQ(c.series[3].label, "fitted, held out");
  EXPECT_NEAR(c.series[3].y[0], -10.0, 1e-9);
  EXPECT_EQ(c.series[3].x[0], 1024.0);
}

}  // namespace
}  // namespace ccforge::validate
