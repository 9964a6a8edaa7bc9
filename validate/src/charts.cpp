#include "ccforge/validate/charts.hpp"

#include <algorithm>
#include <map>

#include <fmt/core.h>

namespace ccforge::validate {

std::vector<std::pair<std::string, plot::Chart>> model_error_charts(const SweepResult& result, const std::vector<Candidate>& algorithms,
                                                                    const topo::Topology& topology, const sim::SimParams& params) {
  // collective -> algorithm -> (measured, simulated) series; std::map keeps the output order stable.
  std::map<std::string, std::map<std::string, std::pair<plot::Series, plot::Series>>> by_collective;
  for (const Measurement& m : result.runs) {
    if (!m.ok()) continue;
    auto& [measured, simulated] = by_collective[m.collective][m.algorithm];
    measured.label = m.algorithm + " measured";
    measured.markers = true;
    simulated.label = m.algorithm + " simulated";
    simulated.style = plot::LineStyle::Dashed;
    measured.x.push_back(static_cast<double>(m.size_bytes));
    measured.y.push_back(m.time_us);
    simulated.x.push_back(static_cast<double>(m.size_bytes));
    simulated.y.push_back(simulated_us(topology, params, m, algorithms));
  }
  std::vector<std::pair<std::string, plot::Chart>> charts;
  for (auto& [collective, algorithm_series] : by_collective) {
    plot::Chart chart;
    chart.title = fmt::format("{} on {}: measured and simulated", collective, result.device);
    chart.y_label = "time (us)";
    chart.log_y = true;
    for (auto& [algorithm, pair] : algorithm_series) {
      chart.series.push_back(std::move(pair.first));
      chart.series.push_back(std::move(pair.second));
    }
    charts.emplace_back(collective, std::move(chart));
  }
  return charts;
}

plot::Chart calibration_chart(const CalibrationResult& result, const std::string& title) {
  std::vector<const CalibrationPoint*> points;
  for (const CalibrationPoint& p : result.points) points.push_back(&p);
  std::stable_sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
  plot::Chart chart;
  chart.title = title;
  chart.y_label = "simulated vs measured (%)";
  for (const bool held_out : {false, true})
    for (const bool after : {false, true}) {
      plot::Series s{fmt::format("{}{}", after ? "fitted" : "before", held_out ? ", held out" : ""), {}, {}, plot::LineStyle::None, true};
      for (const CalibrationPoint* p : points) {
        if (p->held_out != held_out) continue;
        s.x.push_back(static_cast<double>(p->size_bytes));
        s.y.push_back(100.0 * ((after ? p->after_us : p->before_us) / p->measured_us - 1.0));
      }
      if (!s.x.empty()) chart.series.push_back(std::move(s));
    }
  return chart;
}

}  // namespace ccforge::validate
