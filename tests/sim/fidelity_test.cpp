// The acceptance bar: with data/topologies/ndv5.xml, default parameters and the run's settings
// (published_ndv5_params: NCCL 2.18.3, NCCL_MIN_NCHANNELS=32), `--algo nccl` predicts the published times on ND H100 v5 (tests/data/ndv5_msccl_vs_nccl_fp16.csv) for allreduce and
// allgather, 1 KB..1 GB: median absolute error <= 5 %, no point worse than 15 %, on all points and on the
// points held out from the one default fitted on this data (the NVSwitch hop latency, from the 1 KB rows).
// And from 64 MB up, where the tuner keeps NCCL and the lower bound's percentages rest on it, every
// point within 5 %.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "ccforge/sim/sim.hpp"
#include "published_ndv5.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

// The one default fitted on this data set: link.nvswitch.latency, from the two 1 KB rows (see
// topology/src/link_params.cpp). Every other row is held out from that fit.
constexpr ByteCount kCalibrationBytes = 1024;
constexpr ByteCount kBandwidthBoundBytes = 64u << 20;

struct Comparison {
  Fit all;
  Fit held_out;
  Fit bandwidth_bound;  // points of kBandwidthBoundBytes and up
};

// Simulates every published point, prints the per-size error table and summarises the absolute relative
// errors over all points and over the held-out points.
Comparison compare(const topo::Topology& topo) {
  const auto rows = read_published_ndv5();
  EXPECT_EQ(rows.size(), 42u);
  const SimParams params = published_ndv5_params();
  const DataType half = DataType::Half;
  std::vector<double> all, held_out, bandwidth_bound;
  std::string table = fmt::format("{:>11} {:>10} {:>20} {:>10} {:>10} {:>7}\n", "size", "coll", "choice",
                                  "meas_us", "sim_us", "err%");
  for (const Measured& m : rows) {
    const SimResult r = simulate_nccl(topo, m.coll, CallSpec{m.bytes, half}, NcclRequest{}, params);
    const double err = (r.time.us() - m.nccl_us) / m.nccl_us;
    all.push_back(std::abs(err));
    if (m.bytes != kCalibrationBytes) held_out.push_back(std::abs(err));
    if (m.bytes >= kBandwidthBoundBytes) bandwidth_bound.push_back(std::abs(err));
    table += fmt::format("{:>11} {:>10} {:>20} {:>10.2f} {:>10.2f} {:>+7.1f}{}\n", m.bytes, ir::to_string(m.coll),
                         r.algorithm, m.nccl_us, r.time.us(), 100 * err, m.bytes == kCalibrationBytes ? " (fit)" : "");
  }
  const Comparison c{summarize(all), summarize(held_out), summarize(bandwidth_bound)};
  std::printf("%s\n%zu points: median |err| %.1f%%, worst %.1f%%\n%zu held-out points: median |err| %.1f%%, worst %.1f%%\n"
              "%zu points from 64 MB: worst %.1f%%\n",
              table.c_str(), all.size(), 100 * c.all.median, 100 * c.all.worst, held_out.size(),
              100 * c.held_out.median, 100 * c.held_out.worst, bandwidth_bound.size(), 100 * c.bandwidth_bound.worst);
  return c;
}

const std::string kNdv5 = std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml";

TEST(Fidelity, NcclBaselineMatchesPublishedNdv5) {
  const Comparison c = compare(topo::load_topology(kNdv5));
  EXPECT_LE(c.all.median, 0.05);
  EXPECT_LE(c.all.worst, 0.15);
  EXPECT_LE(c.held_out.median, 0.05);
  EXPECT_LE(c.held_out.worst, 0.15);
  EXPECT_LE(c.bandwidth_bound.worst, 0.05);
}

}  // namespace
}  // namespace ccforge::sim
