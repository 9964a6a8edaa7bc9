#include "ccforge/plot/selection_chart.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ccforge::plot {
namespace {

output::SelectionRow row(ir::Collective c, ByteCount size, double nccl, double best, const std::string& algorithm) {
  output::SelectionRow r;
  r.collective = c;
  r.size_bytes = size;
  r.nccl_us = nccl;
  r.best_us = best;
  r.algorithm = algorithm;
  r.lower_bound_us = best / 2;
  return r;
}

TEST(BusBandwidth, FollowsNcclTests) {
  // nccl-tests: allreduce busbw = algbw * 2(n-1)/n; allgather (n-1)/n; broadcast 1.
  EXPECT_NEAR(bus_bandwidth_gbs(ir::Collective::AllReduce, 8, 1e6, 10), 100.0 * 1.75, 1e-9);
  EXPECT_NEAR(bus_bandwidth_gbs(ir::Collective::AllGather, 8, 1e6, 10), 100.0 * 0.875, 1e-9);
  EXPECT_NEAR(bus_bandwidth_gbs(ir::Collective::Broadcast, 8, 1e6, 10), 100.0, 1e-9);
}

TEST(SelectionChart, ShadesTheBandsWonAndSkipsOtherCollectives) {
  const auto ar = ir::Collective::AllReduce;
  const std::vector<output::SelectionRow> rows = {
      row(ar, 1024, 10, 10, "NCCL"),         row(ar, 2048, 12, 8, "allpairs_ll"), row(ar, 4096, 14, 9, "allpairs_ll"),
      row(ar, 8192, 16, 16, "NCCL"),         row(ar, 16384, 20, 15, "ring_ll"),
      row(ir::Collective::AllGather, 1024, 5, 2, "direct_ll")};
  const Chart c = selection_chart(rows, ar, 8, "ndv5");
  EXPECT_EQ(c.title, "allreduce on ndv5 (8 GPUs)");
  ASSERT_EQ(c.series.size(), 3u);
  EXPECT_EQ(c.series[0].label, "NCCL");
  EXPECT_EQ(c.series[0].x.size(), 5u);
  EXPECT_NEAR(c.series[1].y[1], bus_bandwidth_gbs(ar, 8, 2048, 8), 1e-12);
  ASSERT_EQ(c.shades.size(), 2u);
  // 2K and 4K, widened half a step (a factor sqrt 2) each way; the last band's step above is assumed 2.
  EXPECT_NEAR(c.shades[0].x_begin, 2048 / std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(c.shades[0].x_end, 4096 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(c.shades[1].x_begin, 16384 / std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(c.shades[1].x_end, 16384 * std::sqrt(2.0), 1e-9);
}

TEST(SelectionChart, MeasuredTablesWithoutNcclTimesLeaveThatSeriesOut) {
  output::SelectionRow measured = row(ir::Collective::AllGather, 1 << 20, 0, 30, "ring_simple");
  measured.nccl_us.reset();
  measured.lower_bound_us.reset();
  const Chart c = selection_chart({measured}, ir::Collective::AllGather, 8, "ndv5");
  ASSERT_EQ(c.series.size(), 1u);
  EXPECT_EQ(c.series[0].label, "selected");
}

}  // namespace
}  // namespace ccforge::plot
