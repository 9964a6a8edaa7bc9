// The model's error on the published ND H100 v5 measurements (tests/data/ndv5_msccl_vs_nccl_fp16.csv,
// tests/data/SOURCES.md), per algorithm family x protocol x size range: each published row is simulated
// with the msccl-scheduler file whose band holds it (as tests/sim/msccl_fidelity_test.cpp does) and with
// NCCL's own choice (tests/sim/fidelity_test.cpp), and the predicted speedup over NCCL is compared with
// the measured one. search/src/tune/measured_errors.cpp holds the result (tools: measured_error_table).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ccforge/search/expected_error.hpp"
#include "ccforge/sim/sim.hpp"
#include "../sim/published_ndv5.hpp"

namespace ccforge::search {

// Each msccl-scheduler ndv5 file (tests/data/msccl/SOURCES.md) and the ccforge generator that builds the
// same schedule: ap-1pass is the one-shot all-pairs allreduce ("direct"), ap2ll/ap4ll the two-phase
// all-pairs ("twoshot"), r48ll/r48ll128 and ag-32m-1g rings ("ring"), ag-1k..ag-16m direct sends to
// every peer ("direct").
struct PublishedFile {
  const char* file;
  const char* family;
};
inline constexpr PublishedFile kPublishedFiles[] = {
    {"msccl_ndv5_ap-1pass.xml", "direct"}, {"msccl_ndv5_ap2ll.xml", "twoshot"},  {"msccl_ndv5_ap4ll.xml", "twoshot"},
    {"msccl_ndv4_r48ll.xml", "ring"},      {"msccl_ndv5_r48ll128.xml", "ring"},  {"msccl_ndv5_ag-1k-512k.xml", "direct"},
    {"msccl_ndv5_ag-1m.xml", "direct"},    {"msccl_ndv5_ag-2m.xml", "direct"},   {"msccl_ndv5_ag-4m.xml", "direct"},
    {"msccl_ndv5_ag-8m.xml", "direct"},    {"msccl_ndv5_ag-16m.xml", "direct"},  {"msccl_ndv5_ag-32m-1g.xml", "ring"}};

// One published row compared: predicted and measured speedup of the file over NCCL.
struct ComparedPoint {
  ir::Collective collective;
  std::string family, file;
  ir::Protocol protocol;
  ByteCount bytes;
  double error;  // predicted speedup / measured speedup - 1 (positive: the model promises too much)
};

inline std::vector<ComparedPoint> compare_published_ndv5() {
  const std::string root = CCFORGE_SOURCE_DIR;
  const topo::Topology topo = topo::load_topology(root + "/data/topologies/ndv5.xml");
  const sim::SimParams params = sim::published_ndv5_params();
  std::vector<std::pair<PublishedFile, ir::Algorithm>> files;
  for (const PublishedFile& f : kPublishedFiles) files.emplace_back(f, ir::read_msccl_xml(root + "/tests/data/msccl/" + f.file));
  std::vector<ComparedPoint> points;
  for (const sim::Measured& m : sim::read_published_ndv5()) {
    const auto in_band = std::find_if(files.begin(), files.end(), [&](const auto& f) {
      const ir::Algorithm& a = f.second;
      return a.collective == m.coll && m.bytes >= a.min_bytes && (a.max_bytes == 0 || m.bytes <= a.max_bytes);
    });
    if (in_band == files.end()) continue;  // allreduce above 20 MB ran NCCL itself
    const sim::CallSpec call{m.bytes, DataType::Half};
    const double msccl_us = sim::simulate(topo, in_band->second, call, params).time.us();
    const double nccl_us = sim::simulate_nccl(topo, m.coll, call, {}, params).time.us();
    const double predicted = nccl_us / msccl_us, measured = m.nccl_us / m.msccl_us;
    points.push_back({m.coll, in_band->first.family, in_band->first.file, in_band->second.protocol, m.bytes,
                      predicted / measured - 1.0});
  }
  return points;
}

// The points grouped into cells of kErrorSizeRanges; a cell's error is its worst point's.
inline std::vector<MeasuredError> cells_of(const std::vector<ComparedPoint>& points) {
  std::vector<MeasuredError> cells;
  for (const ComparedPoint& p : points) {
    const SizeRange range = *std::find_if(std::begin(kErrorSizeRanges), std::end(kErrorSizeRanges),
                                          [&](const SizeRange& r) { return p.bytes >= r.lo && p.bytes <= r.hi; });
    auto cell = std::find_if(cells.begin(), cells.end(), [&](const MeasuredError& c) {
      return c.collective == p.collective && c.family == p.family && c.protocol == p.protocol && c.sizes.lo == range.lo;
    });
    if (cell == cells.end()) {
      cells.push_back({p.collective, p.family, p.protocol, range, 0, 0.0, 0, 0, ""});
      cell = cells.end() - 1;
    }
    cell->worst_pct = std::max(cell->worst_pct, 100.0 * std::abs(p.error));
    cell->min_measured = cell->points == 0 ? p.bytes : std::min(cell->min_measured, p.bytes);
    cell->max_measured = std::max(cell->max_measured, p.bytes);
    ++cell->points;
    if (cell->source.find(p.file) == std::string::npos) cell->source += (cell->source.empty() ? "" : " ") + p.file;
  }
  return cells;
}

}  // namespace ccforge::search
