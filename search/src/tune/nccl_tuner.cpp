// Tuning inside NCCL's own space: sim::explain_nccl per size, bands where NCCL's pick loses.
#include "ccforge/search/nccl_tuner.hpp"

#include <fmt/core.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace ccforge::search {
namespace {

double gain_of(const sim::NcclExplanation& e) {
  return static_cast<double>(e.pick().time.ps) / static_cast<double>(e.fastest().time.ps) - 1.0;
}

bool same_override(const NcclTunerBand& band, const sim::NcclPointTime& p) {
  return band.point.algo == p.point.algo && band.point.proto == p.point.proto &&
         band.default_channels == p.default_channels && (p.default_channels || band.point.nchannels == p.point.nchannels);
}

}  // namespace

std::vector<NcclTunerBand> nccl_tuner_bands(const std::vector<sim::NcclExplanation>& explanations, double min_gain) {
  std::vector<NcclTunerBand> bands;
  bool extends = false;  // the previous size was overridden, so its band may grow
  for (std::size_t i = 0; i < explanations.size(); ++i) {
    const sim::NcclExplanation& e = explanations[i];
    const ByteCount end = i + 1 < explanations.size() ? explanations[i + 1].bytes - 1 : e.bytes;
    if (!e.pick_loses(min_gain)) {
      extends = false;
      continue;
    }
    const double gain = gain_of(e);
    if (extends && same_override(bands.back(), e.fastest())) {
      NcclTunerBand& b = bands.back();
      b.max_bytes = end;
      b.min_gain = std::min(b.min_gain, gain);
      b.max_gain = std::max(b.max_gain, gain);
    } else {
      bands.push_back({e.bytes, end, e.fastest().point, e.fastest().default_channels, gain, gain});
    }
    extends = true;
  }
  return bands;
}

NcclSpaceTune tune_nccl_space(const topo::Topology& topo, ir::Collective coll, const std::vector<ByteCount>& sizes,
                              DataType dtype, const sim::SimParams& params, double min_gain) {
  NcclSpaceTune t;
  // Per (algorithm, protocol, channels): its time (or floor) at the last smaller size. A larger call
  // never runs faster, so a point whose floor is not below NCCL's pick cannot be chosen.
  std::map<std::tuple<sim::NcclAlgo, ir::Protocol, int>, SimTime> floors;
  auto key = [](const sim::NcclChoice& p) { return std::make_tuple(p.algo, p.proto, p.nchannels); };
  for (ByteCount bytes : sizes) {
    const sim::CallSpec call{bytes, dtype};
    sim::NcclExplanation e{bytes, sim::nccl_space(topo, coll, bytes, params), 0};
    if (!e.points.empty()) e.points[0].time = sim::simulate_nccl_point(topo, coll, call, e.points[0].point, params).time;
    for (std::size_t i = 1; i < e.points.size(); ++i) {
      const auto floor = floors.find(key(e.points[i].point));
      if (floor != floors.end() && floor->second >= e.points[0].time) {
        e.points[i].time = floor->second;
        e.points[i].pruned = true;
      }
    }
    tbb::parallel_for(std::size_t{1}, e.points.size(), [&](std::size_t i) {
      if (!e.points[i].pruned) e.points[i].time = sim::simulate_nccl_point(topo, coll, call, e.points[i].point, params).time;
    });
    for (std::size_t i = 0; i < e.points.size(); ++i) {
      floors[key(e.points[i].point)] = e.points[i].time;
      if (!e.points[i].pruned && e.points[i].time < e.points[e.best].time) e.best = i;
    }
    t.sizes.push_back(std::move(e));
  }
  t.bands = nccl_tuner_bands(t.sizes, min_gain);
  return t;
}

std::string point_name(const sim::NcclChoice& point, bool default_channels) {
  return default_channels ? point.name() + "/nccl" : fmt::format("{}/{}", point.name(), point.nchannels);
}

}  // namespace ccforge::search
