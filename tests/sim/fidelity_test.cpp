// The acceptance bar: with data/topologies/ndv5.xml and default parameters, `--algo nccl` predicts the
// published NCCL 2.18.3 times on ND H100 v5 (tests/data/ndv5_msccl_vs_nccl_fp16.csv) for allreduce and
// allgather, 1 KB..1 GB: median absolute error <= 5 %, no point worse than 15 %.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

struct Measured {
  ByteCount bytes;
  ir::Collective coll;
  double nccl_us;
};

std::vector<Measured> read_published(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header: size_bytes,collective,nccl_us,msccl_us,speedup
  std::vector<Measured> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string size, coll, nccl;
    std::getline(ss, size, ',');
    std::getline(ss, coll, ',');
    std::getline(ss, nccl, ',');
    rows.push_back(Measured{std::stoull(size), *ir::collective_from_string(coll), std::stod(nccl)});
  }
  return rows;
}

TEST(Fidelity, NcclBaselineMatchesPublishedNdv5) {
  const auto topo = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  const auto rows = read_published(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/ndv5_msccl_vs_nccl_fp16.csv");
  ASSERT_EQ(rows.size(), 42u);
  const SimParams params;
  const DataType half = *data_type_from_string("half");
  std::vector<double> errors;
  std::string table = fmt::format("{:>11} {:>10} {:>20} {:>10} {:>10} {:>7}\n", "size", "coll", "choice",
                                  "meas_us", "sim_us", "err%");
  for (const Measured& m : rows) {
    const SimResult r = simulate_nccl(topo, m.coll, CallSpec{m.bytes, half}, NcclRequest{}, params);
    const double err = (r.time.us() - m.nccl_us) / m.nccl_us;
    errors.push_back(std::abs(err));
    table += fmt::format("{:>11} {:>10} {:>20} {:>10.2f} {:>10.2f} {:>+7.1f}\n", m.bytes, ir::to_string(m.coll),
                         r.algorithm, m.nccl_us, r.time.us(), 100 * err);
  }
  std::vector<double> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  const double median = (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  const double worst = sorted.back();
  std::printf("%s\nmedian |err| %.1f%%, worst %.1f%%\n", table.c_str(), 100 * median, 100 * worst);
  EXPECT_LE(median, 0.05);
  EXPECT_LE(worst, 0.15);
}

}  // namespace
}  // namespace ccforge::sim
