#include "ccforge/plot/selection_chart.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/core.h>

namespace ccforge::plot {

double bus_bandwidth_gbs(ir::Collective collective, int ranks, double bytes, double us) {
  return bytes / (us * 1e3) * ir::bus_bandwidth_factor(collective, ranks);
}

namespace {

void add_point(Series& s, ir::Collective c, int ranks, const output::SelectionRow& row, std::optional<double> us) {
  if (!us || *us <= 0) return;
  s.x.push_back(static_cast<double>(row.size_bytes));
  s.y.push_back(bus_bandwidth_gbs(c, ranks, static_cast<double>(row.size_bytes), *us));
}

// Contiguous runs of sizes won by a tuned algorithm, each widened by half a size step on either side so
// that a band of one size is visible.
std::vector<Shade> winning_bands(const std::vector<const output::SelectionRow*>& rows) {
  std::vector<Shade> shades;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i]->algorithm == "NCCL") continue;
    std::size_t last = i;
    while (last + 1 < rows.size() && rows[last + 1]->algorithm != "NCCL") ++last;
    const double first_size = static_cast<double>(rows[i]->size_bytes), last_size = static_cast<double>(rows[last]->size_bytes);
    const double below = i > 0 ? first_size / static_cast<double>(rows[i - 1]->size_bytes) : 2.0;
    const double above = last + 1 < rows.size() ? static_cast<double>(rows[last + 1]->size_bytes) / last_size : 2.0;
    shades.push_back({first_size / std::sqrt(below), last_size * std::sqrt(above)});
    i = last;
  }
  return shades;
}

}  // namespace

Chart selection_chart(const std::vector<output::SelectionRow>& rows, ir::Collective collective, int ranks,
                      const std::string& machine) {
  std::vector<const output::SelectionRow*> own;
  for (const output::SelectionRow& r : rows)
    if (r.collective == collective) own.push_back(&r);
  Chart chart;
  chart.title = fmt::format("{} on {} ({} GPUs)", ir::to_string(collective), machine, ranks);
  chart.y_label = "bus bandwidth (GB/s)";
  Series nccl{"NCCL", {}, {}, LineStyle::Solid, true};
  Series selected{"selected", {}, {}, LineStyle::Solid, true};
  Series bound{"lower bound", {}, {}, LineStyle::Dashed, false};
  for (const output::SelectionRow* r : own) {
    add_point(nccl, collective, ranks, *r, r->nccl_us);
    add_point(selected, collective, ranks, *r, r->best_us);
    add_point(bound, collective, ranks, *r, r->lower_bound_us);
  }
  for (Series* s : {&nccl, &selected, &bound})
    if (!s->x.empty()) chart.series.push_back(std::move(*s));
  chart.shades = winning_bands(own);
  chart.shade_label = "tuned algorithm";
  return chart;
}

void write_selection_plots(const std::vector<output::SelectionRow>& rows, int ranks, const std::string& machine,
                           const std::filesystem::path& dir) {
  std::vector<ir::Collective> collectives;
  for (const output::SelectionRow& r : rows)
    if (std::find(collectives.begin(), collectives.end(), r.collective) == collectives.end()) collectives.push_back(r.collective);
  if (collectives.empty()) return;
  std::filesystem::create_directories(dir / "plots");
  for (ir::Collective c : collectives)
    write_chart(selection_chart(rows, c, ranks, machine), dir / "plots" / (std::string(ir::to_string(c)) + ".svg"));
}

}  // namespace ccforge::plot
