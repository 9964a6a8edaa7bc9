#include "tune/nccl_tuner_outputs.hpp"

#include <fmt/core.h>

#include "ccforge/sim/nccl_numbering.hpp"


namespace ccforge::search {
namespace {

std::string gain_range(double lo, double hi) {
  return lo == hi ? fmt::format("{:.1f} %", 100 * lo) : fmt::format("{:.1f}-{:.1f} %", 100 * lo, 100 * hi);
}

nlohmann::json point_json(const sim::NcclPointTime& p) {
  nlohmann::json j{{"algorithm", sim::to_string(p.point.algo)}, {"protocol", ir::to_string(p.point.proto)},
                   {"channels", p.point.nchannels}, {"nccl_channels", p.default_channels},
                   {"time_us", p.pruned ? nlohmann::json(nullptr) : nlohmann::json(p.time.us())},
                   {"nccl_model_us", p.point.model_us}};
  if (p.pruned) j["pruned_floor_us"] = p.time.us();  // not simulated: no faster than NCCL's choice
  return j;
}

}  // namespace

std::vector<tuner_conf::Rule> nccl_tuner_rules(const TuneResult& result) {
  std::vector<tuner_conf::Rule> rules;
  for (const CollectiveTune& ct : result.collectives) {
    const int func = sim::nccl_func_index(ct.collective);
    if (func < 0) continue;
    for (const NcclTunerBand& b : ct.nccl_space.bands)
      rules.push_back({func, b.min_bytes, b.max_bytes, result.nodes, result.ranks_per_node, sim::nccl_algo_row(b.point.algo),
                       sim::nccl_proto_index(b.point.proto), b.default_channels ? 0 : b.point.nchannels});
  }
  return rules;
}

std::string nccl_tuner_conf(const TuneResult& result, double min_gain) {
  return tuner_conf::format_table(
      nccl_tuner_rules(result), fmt::format("ccforge tune for {}: calls where a point of NCCL's own space is predicted {:.0f} % or more\n"
                         "faster than NCCL's default choice (gains per band: selection.md). Every other call keeps\n"
                         "NCCL's choice. Load with NCCL_TUNER_PLUGIN=libnccl-tuner-ccforge.so.",
                         result.topology, 100 * min_gain));
}

std::string nccl_space_markdown(const TuneResult& result, double min_gain) {
  std::string md = fmt::format(
      "\n# NCCL's own space (nccl-tuner.conf)\n\nPer size NCCL's default choice (the sim's model of NCCL's tuner) "
      "and the fastest algorithm x protocol x channels NCCL can run; a band goes to nccl-tuner.conf where the "
      "fastest is at least {:.0f} % faster (--min-gain: ccforge has no per-algorithm error model yet).\n",
      100 * min_gain);
  for (const CollectiveTune& ct : result.collectives) {
    if (ct.nccl_space.sizes.empty() || ct.nccl_space.sizes.front().points.empty()) continue;
    md += fmt::format("\n## {}\n\n| size | NCCL's choice | us | fastest | us | gain | tuner |\n|---:|---|---:|---|---:|---:|---|\n",
                      ir::to_string(ct.collective));
    for (const sim::NcclExplanation& e : ct.nccl_space.sizes)
      md += fmt::format("| {} | {} | {:.2f} | {} | {:.2f} | {:.1f} % | {} |\n", format_size(e.bytes),
                        point_name(e.pick().point, true), e.pick().time.us(),
                        point_name(e.fastest().point, e.fastest().default_channels), e.fastest().time.us(),
                        100 * (e.pick().time.us() / e.fastest().time.us() - 1), e.pick_loses(min_gain) ? "override" : "NCCL");
    if (ct.nccl_space.bands.empty()) continue;
    md += "\n| band | forced | predicted gain |\n|---|---|---:|\n";
    for (const NcclTunerBand& b : ct.nccl_space.bands)
      md += fmt::format("| {} - {} | {} | {} |\n", format_size(b.min_bytes), format_size(b.max_bytes),
                        point_name(b.point, b.default_channels), gain_range(b.min_gain, b.max_gain));
  }
  return md;
}

nlohmann::json explanations_json(const std::vector<sim::NcclExplanation>& explanations, double min_gain) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const sim::NcclExplanation& e : explanations) {
    if (e.points.empty()) continue;
    nlohmann::json points = nlohmann::json::array();
    for (const sim::NcclPointTime& p : e.points) points.push_back(point_json(p));
    sizes.push_back({{"bytes", e.bytes}, {"nccl_choice", 0}, {"fastest", e.best},
                     {"gain", e.pick().time.us() / e.fastest().time.us() - 1}, {"override", e.pick_loses(min_gain)},
                     {"points", points}});
  }
  return sizes;
}

std::string explanations_json_text(const std::vector<sim::NcclExplanation>& explanations, double min_gain) {
  return explanations_json(explanations, min_gain).dump(2);
}

nlohmann::json nccl_space_json(const NcclSpaceTune& space, double min_gain) {
  nlohmann::json bands = nlohmann::json::array();
  for (const NcclTunerBand& b : space.bands)
    bands.push_back({{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"algorithm", sim::to_string(b.point.algo)},
                     {"protocol", ir::to_string(b.point.proto)}, {"channels", b.default_channels ? 0 : b.point.nchannels},
                     {"min_gain", b.min_gain}, {"max_gain", b.max_gain}});
  return {{"sizes", explanations_json(space.sizes, min_gain)}, {"bands", bands}};
}

}  // namespace ccforge::search
