#include "sim_explain.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/units.hpp"
#include "ccforge/search/nccl_tuner.hpp"

namespace ccforge::cli {

void print_explanations(const std::vector<sim::NcclExplanation>& explanations, const std::string& format,
                        const std::string& header, double min_gain, const RunMetadata& metadata) {
  if (format == "json") {
    nlohmann::json out = to_json(metadata);
    out["sizes"] = nlohmann::json::parse(search::explanations_json_text(explanations, min_gain));
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("# {}\n# every algorithm x protocol x channels NCCL can run; '*' NCCL's choice, '+' fastest;\n"
             "# LOSES: NCCL's choice is {:.0f} % or more slower than the fastest (--min-gain)\n",
             header, 100 * min_gain);
  for (const sim::NcclExplanation& e : explanations) {
    if (e.points.empty()) continue;
    const double gain = e.pick().time.us() / e.fastest().time.us() - 1;
    fmt::print("\n{} ({} B): NCCL's choice {} {:.2f} us, fastest {} {:.2f} us{}\n", format_size(e.bytes), e.bytes,
               search::point_name(e.pick().point, true), e.pick().time.us(),
               search::point_name(e.fastest().point, e.fastest().default_channels), e.fastest().time.us(),
               e.pick_loses(min_gain) ? fmt::format("  LOSES {:.1f} %", 100 * gain) : std::string());
    fmt::print("  {:<28} {:>9} {:>13}\n", "algorithm:protocol/channels", "sim us", "NCCL model us");
    for (std::size_t i = 0; i < e.points.size(); ++i) {
      const sim::NcclPointTime& p = e.points[i];
      fmt::print("{}{} {:<28} {:>9.2f} {:>13.2f}\n", i == 0 ? '*' : ' ', i == e.best ? '+' : ' ',
                 search::point_name(p.point, p.default_channels), p.time.us(), p.point.model_us);
    }
  }
}

}  // namespace ccforge::cli
