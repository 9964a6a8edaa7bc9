#include "nccl_space_outputs.hpp"

#include <fmt/core.h>

#include "ccforge/common/quoting.hpp"
#include "ccforge/output/nccl_space.hpp"

namespace ccforge::output {
namespace {

std::string gain_range(double lo, double hi) {
  return lo == hi ? fmt::format("{:.1f} %", 100 * lo) : fmt::format("{:.1f}-{:.1f} %", 100 * lo, 100 * hi);
}

nlohmann::json point_json(const NcclPoint& p) {
  nlohmann::json j{{"algorithm", ir::to_string(p.algo)}, {"protocol", ir::to_string(p.proto)},
                   {"channels", p.channels}, {"nccl_channels", p.default_channels},
                   {"time_us", p.pruned ? nlohmann::json(nullptr) : nlohmann::json(p.time_us)},
                   {"nccl_model_us", p.model_us}};
  if (p.pruned) j["pruned_floor_us"] = p.time_us;  // not simulated: no faster than NCCL's choice
  return j;
}

nlohmann::json sizes_json(const std::vector<NcclSpaceSize>& sizes) {
  nlohmann::json out = nlohmann::json::array();
  for (const NcclSpaceSize& e : sizes) {
    if (e.points.empty()) continue;
    nlohmann::json points = nlohmann::json::array();
    for (const NcclPoint& p : e.points) points.push_back(point_json(p));
    out.push_back({{"bytes", e.bytes}, {"nccl_choice", 0}, {"fastest", e.fastest}, {"gain", e.gain},
                   {"override", e.overridden}, {"points", points}});
  }
  return out;
}

}  // namespace

std::string nccl_tuner_conf(const TuneReport& report) {
  return tuner_conf::format_table(
      report.tuner_rules, fmt::format("ccforge tune for {}: calls where a point of NCCL's own space is predicted {:.0f} % or more\n"
                         "faster than NCCL's default choice (gains per band: selection.md). Every other call keeps\n"
                         "NCCL's choice. Load with NCCL_TUNER_PLUGIN=libnccl-tuner-ccforge.so.",
                         report.topology, 100 * report.request.min_gain));
}

std::string nccl_space_markdown(const TuneReport& report) {
  std::string md = fmt::format(
      "\n# NCCL's own space (nccl-tuner.conf)\n\nPer size NCCL's default choice (the sim's model of NCCL's tuner) "
      "and the fastest algorithm x protocol x channels NCCL can run; a band goes to nccl-tuner.conf where the "
      "fastest is at least {:.0f} % faster (--min-gain: ccforge has no per-algorithm error model yet).\n",
      100 * report.request.min_gain);
  for (const CollectiveReport& ct : report.collectives) {
    if (ct.nccl_sizes.empty() || ct.nccl_sizes.front().points.empty()) continue;
    md += fmt::format("\n## {}\n\n| size | NCCL's choice | us | fastest | us | gain | tuner |\n|---:|---|---:|---|---:|---:|---|\n",
                      ir::to_string(ct.collective));
    for (const NcclSpaceSize& e : ct.nccl_sizes)
      md += fmt::format("| {} | {} | {:.2f} | {} | {:.2f} | {:.1f} % | {} |\n", format_size(e.bytes), e.pick_name,
                        e.points.front().time_us, e.fastest_name, e.points[e.fastest].time_us, 100 * e.gain,
                        e.overridden ? "override" : "NCCL");
    if (ct.nccl_bands.empty()) continue;
    md += "\n| band | forced | predicted gain |\n|---|---|---:|\n";
    for (const NcclSpaceBand& b : ct.nccl_bands)
      md += fmt::format("| {} - {} | {} | {} |\n", format_size(b.min_bytes), format_size(b.max_bytes), b.name,
                        gain_range(b.min_gain, b.max_gain));
  }
  return md;
}

std::string nccl_space_sizes_json_text(const std::vector<NcclSpaceSize>& sizes) { return sizes_json(sizes).dump(2); }

nlohmann::json nccl_space_json(const CollectiveReport& collective) {
  nlohmann::json bands = nlohmann::json::array();
  for (const NcclSpaceBand& b : collective.nccl_bands)
    bands.push_back({{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"algorithm", ir::to_string(b.algo)},
                     {"protocol", ir::to_string(b.proto)}, {"channels", b.channels},
                     {"min_gain", b.min_gain}, {"max_gain", b.max_gain}});
  return {{"sizes", sizes_json(collective.nccl_sizes)}, {"bands", bands}};
}

}  // namespace ccforge::output
