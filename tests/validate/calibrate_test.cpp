// calibrate on the NDv5 nccl-tests fixture (tests/data/nccl-tests, reformatted from the published
// numbers): the fit must lower the error on the sizes it never saw. Plus the readers' error lines and
// model_error.csv.
#include <cmath>
#include <filesystem>
#include <string>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/validate/validate.hpp"
#include "source_dir.hpp"

namespace ccforge::validate {
namespace {

const std::filesystem::path kSource(CCFORGE_SOURCE_DIR);
const std::filesystem::path kLogs = kSource / "tests/data/nccl-tests";
const std::filesystem::path kNdv5 = kSource / "data/topologies/ndv5.xml";

std::vector<Measurement> ndv5_fixture() {
  auto runs = read_nccl_tests_log(kLogs / "ndv5_allreduce_perf.log");
  const auto gather = read_nccl_tests_log(kLogs / "ndv5_allgather_perf.log");
  runs.insert(runs.end(), gather.begin(), gather.end());
  return runs;
}

void print_held_out(const CalibrationResult& r) {
  fmt::print("{:>10} {:>12} {:>10} {:>9} {:>9}\n", "coll", "size", "measured", "before%", "after%");
  for (const auto& p : r.points)
    if (p.held_out)
      fmt::print("{:>10} {:>12} {:>10.2f} {:>9.1f} {:>9.1f}\n", p.collective, p.size_bytes, p.measured_us,
                 (p.before_us / p.measured_us - 1) * 100, (p.after_us / p.measured_us - 1) * 100);
}

TEST(NcclTestsLog, ReadsBothPlacementsOfEverySize) {
  const auto runs = read_nccl_tests_log(kLogs / "ndv5_allgather_perf.log");
  ASSERT_EQ(runs.size(), 42u);  // 1K..1G: 21 sizes, out-of-place and in-place
  EXPECT_EQ(runs[0].collective, "allgather");
  EXPECT_EQ(runs[0].size_bytes, 1024u);
  EXPECT_EQ(runs[0].count, 64u);  // nccl-tests prints the per-rank count for allgather
  EXPECT_FALSE(runs[0].inplace);
  EXPECT_TRUE(runs[1].inplace);
  EXPECT_DOUBLE_EQ(runs[0].time_us, 9.54);
  EXPECT_EQ(runs[0].algorithm, "NCCL");
}

TEST(NcclTestsLog, CollectiveFlagStandsInForTheStartLine) {
  const auto runs = read_nccl_tests_log(kLogs / "no_collective.log", ir::Collective::AllReduce);
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs[0].collective, "allreduce");
}

class MalformedLog : public ::testing::TestWithParam<const char*> {};

TEST_P(MalformedLog, IsOneLineNamingFileAndLine) {
  const auto file = kLogs / GetParam();
  try {
    read_measurements(file);
    FAIL() << "no error for " << file;
  } catch (const DiagError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file.string() + ":16: ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MalformedLog, ::testing::Values("bad_columns.log", "bad_number.log", "no_collective.log"));

TEST(MeasuredCsv, ReadsBackWhatValidateWroteSkippingFailedRuns) {
  SweepResult sweep{"host", 8, {}, {}};
  sweep.runs.push_back({"allreduce", "ring, v2", "a.xml", "LL", 4096, 2048, "half", "sum", true, 12.5, 0, 0, 0, ""});
  sweep.runs.push_back({"allreduce", "bad", "b.xml", "LL", 4096, 2048, "half", "sum", true, 3.0, 0, 0, -1, "deadlock"});
  const auto dir = std::filesystem::temp_directory_path() / "ccforge_calibrate_measured";
  write_sweep_outputs(sweep, {}, dir);
  const auto runs = read_measurements(dir / "measured.csv");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].algorithm, "ring, v2");
  EXPECT_EQ(runs[0].file, "a.xml");
  EXPECT_TRUE(runs[0].inplace);
  EXPECT_DOUBLE_EQ(runs[0].time_us, 12.5);
}

TEST(ModelError, RowsCompareMeasuredWithSimulatedNccl) {
  SweepResult sweep{"cuda", 8, {}, {}};
  sweep.runs.push_back({"allreduce", "NCCL", "", "", 1 << 20, 1 << 19, "half", "sum", false, 31.94, 0, 0, 0, ""});
  const auto topology = topo::load_topology(kNdv5);
  const sim::SimParams params;
  const std::string csv = model_error_csv(sweep, {}, topology, params);
  const double simulated = simulated_us(topology, params, sweep.runs[0], {});
  const std::string expected_row =
      fmt::format("allreduce,NCCL,1048576,31.940,{:.3f},{:.2f}\n", simulated, (simulated - 31.94) / 31.94 * 100);
  EXPECT_EQ(csv, "collective,algorithm,size_bytes,measured_us,simulated_us,error_pct\n" + expected_row);
}

TEST(Calibrate, LowersTheErrorOnHeldOutSizesOfTheNdv5Fixture) {
  const auto topology = topo::load_topology(kNdv5);
  CalibrationOptions options;
  options.params = default_fit_params(topology, sim::SimParams{});
  options.source = "calibrate: test";
  ASSERT_GE(options.params.size(), 3u);
  const CalibrationResult r = calibrate(kNdv5, {}, ndv5_fixture(), {}, options);
  print_held_out(r);
  const auto before = mean_abs_error_pct(r.points, true, false), after = mean_abs_error_pct(r.points, true, true);
  ASSERT_TRUE(before && after);
  fmt::print("held-out mean |error|: before {:.2f}%, after {:.2f}%\n", *before, *after);
  EXPECT_LT(*after, *before);
  EXPECT_LT(*mean_abs_error_pct(r.points, false, true), *mean_abs_error_pct(r.points, false, false));
  for (std::size_t k = 0; k < r.fitted.size(); ++k) {
    EXPECT_GE(r.fitted[k].value, options.params[k].lower) << r.fitted[k].name;
    EXPECT_LE(r.fitted[k].value, options.params[k].upper) << r.fitted[k].name;
  }
}

TEST(Calibrate, ProfileRoundTripsThroughTheTopologyReader) {
  const auto topology = topo::load_topology(kNdv5);
  CalibrationOptions options;
  options.params = default_fit_params(topology, sim::SimParams{});
  options.holdout = Holdout::None;
  options.max_iterations = 2;
  options.source = "calibrate: test";
  const CalibrationResult r = calibrate(kNdv5, {}, read_nccl_tests_log(kLogs / "ndv5_allreduce_perf.log"), {}, options);
  const auto path = std::filesystem::temp_directory_path() / "ccforge_calibrate_profile.xml";
  write_calibrated_profile(r, path);
  const auto entries = topo::read_profile(path);
  ASSERT_EQ(entries.size(), r.fitted.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    EXPECT_EQ(entries[k].name, r.fitted[k].name);
    EXPECT_DOUBLE_EQ(entries[k].value, r.fitted[k].value);
  }
  for (const auto& p : r.points) EXPECT_FALSE(p.held_out);
}

}  // namespace
}  // namespace ccforge::validate
