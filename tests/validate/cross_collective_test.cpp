// Calibrated on one collective, ccforge predicts another collective of the same machine (issue 14): the
// ND H100 v5 allreduce table fits the model, the allgather table is predicted with the fitted profile,
// and back. Out-of-place rows >= 1 KB, under the settings Azure used (NCCL 2.18.3,
// NCCL_MIN_NCHANNELS=32). Bar: median |error| <= 5 %. And a profile fitted to a ring-forced log, used for
// the default (NVLS) allreduce, changes ring terms only.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "ccforge/validate/validate.hpp"
#include "source_dir.hpp"

namespace ccforge::validate {
namespace {

const std::string kRoot = CCFORGE_SOURCE_DIR;
const std::string kNdv5 = kRoot + "/data/topologies/ndv5.xml";

std::string log_path(const std::string& name) { return kRoot + "/tests/data/nccl-tests/" + name; }

sim::SimParams ndv5_conditions() {
  sim::SimParams params;
  sim::set_nccl_version(params, sim::parse_nccl_version("2.18.3", "test"));
  sim::apply_nccl_env("NCCL_MIN_NCHANNELS=32", params.nccl, "test");
  return params;
}

CalibrationResult calibrate_on(const std::string& log, const sim::SimParams& conditions) {
  CalibrationOptions options;
  options.base = conditions;
  options.params = default_fit_params(topo::load_topology(kNdv5), conditions);
  options.holdout = Holdout::None;
  options.source = "calibrate: " + log;
  return calibrate(kNdv5, {}, read_nccl_tests_log(log_path(log)), {}, options);
}

struct Errors {
  double median_pct;
  double worst_pct;
};

// `log` predicted with `fitted` applied on top of `conditions` (none: uncalibrated).
Errors predict(const std::string& log, const sim::SimParams& conditions, const std::vector<Param>& fitted) {
  topo::LoadOptions load;
  sim::SimParams params = conditions;
  for (const Param& p : fitted) {
    if (p.name.starts_with("link.")) load.profile.push_back({p.name, p.value, SourceLoc{"fitted", 0}});
    else set_param(params, p.name, p.value, p.source);
  }
  const topo::Topology topology = topo::load_topology(kNdv5, load);
  std::vector<double> errors;
  for (const Measurement& m : read_nccl_tests_log(log_path(log))) {
    if (m.inplace || m.size_bytes < 1024) continue;
    const double error = simulated_us(topology, params, m, {}) / m.time_us - 1;
    if (!fitted.empty()) fmt::print("  {} {:>11} B: {:+.1f} %\n", m.collective, m.size_bytes, error * 100);
    errors.push_back(std::abs(error) * 100);
  }
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  return {n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2, errors.back()};
}

CalibrationResult expect_predicts_other(const std::string& fit_log, const std::string& other_log, double max_median_pct) {
  const sim::SimParams conditions = ndv5_conditions();
  CalibrationResult r = calibrate_on(fit_log, conditions);
  for (const Param& p : r.fitted) fmt::print("fitted {} = {:.4g}\n", p.name, p.value);
  for (const HeldParam& h : r.held) fmt::print("held {}: {}\n", h.name, h.reason);
  const Errors before = predict(other_log, conditions, {}), after = predict(other_log, conditions, r.fitted);
  fmt::print("{} predicted from {}: uncalibrated median {:.1f} % worst {:.1f} %; calibrated median {:.1f} % worst {:.1f} %\n",
             other_log, fit_log, before.median_pct, before.worst_pct, after.median_pct, after.worst_pct);
  EXPECT_LE(after.median_pct, max_median_pct);
  return r;
}

// Achieved 4.5 % / 13.8 % (uncalibrated 4.5 / 14.7). Before calibrate held inseparable parameters: 19.2 /
// 28.2 % (the fit drove sim.base.LL_us to 0 and link.nvswitch.latency to 0.49 us).
TEST(CrossCollective, Ndv5AllreduceProfilePredictsAllgather) {
  expect_predicts_other("ndv5_allreduce_perf.log", "ndv5_allgather_perf.log", 5.0);
}

// Achieved 3.2 % / 9.0 % (uncalibrated 2.2 / 9.7; all fitted 12.2 / 27.8). While calibrate held the cited
// LL base and fitted the NVSwitch hop latency instead (5.3 / 14.0 %), the latency absorbed allgather's
// +0.74 us per-call offset over its 7 LL steps (0.2557 -> 0.2043 us) and carried it into allreduce's
// 14 ring steps and NVLS's multimem handoff (2-8 KB and 8-32 MB rows -8..-14 %).
TEST(CrossCollective, Ndv5AllgatherProfilePredictsAllreduce) {
  const CalibrationResult r = expect_predicts_other("ndv5_allgather_perf.log", "ndv5_allreduce_perf.log", 5.0);
  // The widest-reaching member of the inseparable pair keeps its default; the LL base is fitted instead.
  ASSERT_EQ(r.held.size(), 1u);
  EXPECT_EQ(r.held[0].name, "link.nvswitch.latency");
  EXPECT_TRUE(std::any_of(r.fitted.begin(), r.fitted.end(), [](const Param& p) { return p.name == "sim.base.LL_us"; }));
}

// A ring-forced H100 log (NCCL_ALGO=RING, NVLS off) identifies ring terms only: the profile it gives,
// used for NCCL's default allreduce (NVLS on), leaves every NVLS parameter at its default and changes
// the ring terms it fitted.
TEST(CrossCollective, RingForcedProfileLeavesNvlsTermsAtDefaults) {
  const std::string topo_file = kRoot + "/data/topologies/dgx-h100.xml", log = log_path("h100_8gpu_1node_allreduce_ring.log");
  const LogConditions header = read_nccl_tests_conditions(log);
  sim::SimParams defaults;
  defaults.launch.threads = header.threads;
  defaults.launch.gpus_per_thread = header.gpus_per_thread;
  sim::set_nccl_version(defaults, sim::parse_nccl_version(header.nccl_version.value_or("2.18"), log));
  sim::SimParams ring = defaults;
  for (const char* env : {"NCCL_ALGO=RING", "NCCL_NVLS_ENABLE=0"}) sim::apply_nccl_env(env, ring.nccl, log);
  CalibrationOptions options;
  options.base = ring;
  options.params = default_fit_params(topo::load_topology(topo_file), ring);
  options.holdout = Holdout::None;
  const CalibrationResult r = calibrate(topo_file, {}, read_nccl_tests_log(log), {}, options);
  ASSERT_FALSE(r.fitted.empty());
  sim::SimParams calibrated = defaults;
  for (const Param& p : r.fitted) {
    fmt::print("fitted {} = {:.4g}\n", p.name, p.value);
    EXPECT_EQ(p.name.find("nvls"), std::string::npos) << p.name << " fitted to ring-only data";
    if (!p.name.starts_with("link.")) set_param(calibrated, p.name, p.value, p.source);
  }
  int nvls_params = 0;
  for (const FitParam& p : options.params) {
    if (p.name.find("nvls") == std::string::npos) continue;
    ++nvls_params;
    EXPECT_DOUBLE_EQ(param_value(calibrated, p.name).value(), param_value(defaults, p.name).value()) << p.name;
  }
  EXPECT_GE(nvls_params, 2);
}

}  // namespace
}  // namespace ccforge::validate
