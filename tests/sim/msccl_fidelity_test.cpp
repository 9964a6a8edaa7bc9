// Second fidelity check: the real msccl-scheduler ndv5 algorithm files, simulated on
// data/topologies/ndv5.xml with default parameters, against the published MSCCL column of ND H100 v5
// (tests/data/ndv5_msccl_vs_nccl_fp16.csv). Each csv size is simulated with the file whose
// minBytes..maxBytes band holds it, as msccl-scheduler picks; allreduce above 20 MB ran NCCL itself and
// is not compared. The MSCCL parameters (sim/src/params.cpp msccl_params, executor_params) are fitted
// on the rows is_fit_row names; the others are held out and reported apart.
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

const std::string kRoot = CCFORGE_SOURCE_DIR;

// The ndv5 files of Azure/msccl-scheduler (tests/data/msccl/SOURCES.md); r48ll is the ndv4 copy, which is
// byte-identical.
std::vector<ir::Algorithm> ndv5_algorithms() {
  const char* files[] = {"msccl_ndv5_ap-1pass.xml",   "msccl_ndv5_ap2ll.xml",   "msccl_ndv5_ap4ll.xml",
                         "msccl_ndv4_r48ll.xml",      "msccl_ndv5_r48ll128.xml", "msccl_ndv5_ag-1k-512k.xml",
                         "msccl_ndv5_ag-1m.xml",      "msccl_ndv5_ag-2m.xml",    "msccl_ndv5_ag-4m.xml",
                         "msccl_ndv5_ag-8m.xml",      "msccl_ndv5_ag-16m.xml",   "msccl_ndv5_ag-32m-1g.xml"};
  std::vector<ir::Algorithm> algos;
  for (const char* f : files) algos.push_back(ir::read_msccl_xml(kRoot + "/tests/data/msccl/" + f));
  return algos;
}

const ir::Algorithm* in_band(const std::vector<ir::Algorithm>& algos, const Measured& m) {
  for (const ir::Algorithm& a : algos) {
    if (a.collective == m.coll && m.bytes >= a.min_bytes && (a.max_bytes == 0 || m.bytes <= a.max_bytes)) return &a;
  }
  return nullptr;
}

// The rows the MSCCL parameters were fitted on: every allreduce row (sim.msccl.dep_us and
// line_forward_us on ap-1pass and r48ll, sim.msccl.tb_bw.LL128 on r48ll128) and the allgather 1 KB row
// (sim.msccl.base_us). Every other allgather row is held out.
bool is_fit_row(const Measured& m) {
  if (m.coll == ir::Collective::AllReduce) return true;
  return m.bytes == 1024;
}

struct Comparison {
  Fit all, fitted, held_out, ll;  // ll: held-out points of LL files
};

Comparison compare() {
  const topo::Topology topo = topo::load_topology(kRoot + "/data/topologies/ndv5.xml");
  const std::vector<ir::Algorithm> algos = ndv5_algorithms();
  const SimParams params;
  const DataType half = DataType::Half;
  std::vector<double> all, fitted, held_out, ll;
  std::string table = fmt::format("{:>11} {:>10} {:>30} {:>6} {:>9} {:>9} {:>7}\n", "size", "coll", "file band",
                                  "proto", "meas_us", "sim_us", "err%");
  for (const Measured& m : read_published_ndv5()) {
    const ir::Algorithm* a = in_band(algos, m);
    if (a == nullptr) continue;
    const SimResult r = simulate(topo, *a, CallSpec{m.bytes, half}, params);
    const double err = (r.time.us() - m.msccl_us) / m.msccl_us;
    all.push_back(std::abs(err));
    if (is_fit_row(m)) {
      fitted.push_back(std::abs(err));
    } else {
      held_out.push_back(std::abs(err));
      if (a->protocol == ir::Protocol::LL) ll.push_back(std::abs(err));
    }
    table += fmt::format("{:>11} {:>10} {:>30} {:>6} {:>9.2f} {:>9.2f} {:>+7.1f}{}\n", m.bytes,
                         ir::to_string(m.coll), fmt::format("{}..{}", a->min_bytes, a->max_bytes),
                         ir::to_string(a->protocol), m.msccl_us, r.time.us(), 100 * err,
                         is_fit_row(m) ? " (fit)" : "");
  }
  const Comparison c{summarize(all), summarize(fitted), summarize(held_out), summarize(ll)};
  std::printf("%s\n%zu points: median |err| %.1f%%, worst %.1f%%\n%zu fitted points: median |err| %.1f%%, worst "
              "%.1f%%\n%zu held-out points: median |err| %.1f%%, worst %.1f%%\n%zu held-out LL points: median |err| "
              "%.1f%%, worst %.1f%%\n",
              table.c_str(), all.size(), 100 * c.all.median, 100 * c.all.worst, fitted.size(), 100 * c.fitted.median,
              100 * c.fitted.worst, held_out.size(), 100 * c.held_out.median, 100 * c.held_out.worst, ll.size(),
              100 * c.ll.median, 100 * c.ll.worst);
  EXPECT_EQ(all.size(), 36u);  // allreduce 1 KB..16 MB, allgather 1 KB..1 GB
  return c;
}

// The NCCL bar (median <= 5 %, worst <= 15 %) holds for the fitted and held-out medians and for the
// LL files. The worst points are the direct Simple allgather files ag-4m/8m/16m (-21...-29 %) and the
// direct LL128 ag-2m (-25 %), all held out, and r48ll128 at 2 MB (+18 %, fitted) (docs/fidelity-msccl.md);
// the bound below is what the model reaches, so that any regression fails.
TEST(MscclFidelity, Ndv5AlgorithmFilesMatchPublishedMscclColumn) {
  const Comparison c = compare();
  EXPECT_LE(c.all.median, 0.05);
  EXPECT_LE(c.fitted.median, 0.05);
  EXPECT_LE(c.held_out.median, 0.05);
  EXPECT_LE(c.ll.median, 0.05);
  EXPECT_LE(c.ll.worst, 0.15);
  EXPECT_LE(c.all.worst, 0.29);
}

}  // namespace
}  // namespace ccforge::sim
