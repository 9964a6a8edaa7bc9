// The published ND H100 v5 times (tests/data/ndv5_msccl_vs_nccl_fp16.csv; source in tests/data/SOURCES.md),
// read once for the NCCL and the MSCCL fidelity tests, and the error summary both print.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {

struct Measured {
  ByteCount bytes;
  ir::Collective coll;
  double nccl_us;
  double msccl_us;
};

inline std::vector<Measured> read_published_ndv5() {
  std::ifstream in(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/ndv5_msccl_vs_nccl_fp16.csv");
  std::string line;
  std::getline(in, line);  // header: size_bytes,collective,nccl_us,msccl_us,speedup
  std::vector<Measured> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string size, coll, nccl, msccl;
    std::getline(ss, size, ',');
    std::getline(ss, coll, ',');
    std::getline(ss, nccl, ',');
    std::getline(ss, msccl, ',');
    rows.push_back(Measured{std::stoull(size), *ir::collective_from_string(coll), std::stod(nccl), std::stod(msccl)});
  }
  return rows;
}

// The conditions the published rows ran under (Azure/msccl docs/performance-nd-h100-v5.md): NCCL 2.18.3
// with NCCL_MIN_NCHANNELS=32, one process per GPU.
inline SimParams published_ndv5_params() {
  SimParams params;
  set_nccl_version(params, parse_nccl_version("2.18.3", "published ND H100 v5"));
  apply_nccl_env("NCCL_MIN_NCHANNELS=32", params.nccl, "published ND H100 v5");
  return params;
}

// Median and worst of absolute relative errors.
struct Fit {
  double median = 0.0;
  double worst = 0.0;
};

inline Fit summarize(std::vector<double> errors) {
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  return Fit{n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2, errors.back()};
}

}  // namespace ccforge::sim
