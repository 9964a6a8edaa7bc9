// The charts validate and calibrate draw (plot/chart.hpp): measured against predicted time per size, and
// the model's error per size before and after a calibration.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ccforge/plot/chart.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

// Per collective measured in `result` (correct runs only): time against size, measured (solid, markers)
// and simulated on `topology` (dashed) for each algorithm. Pairs of (collective, chart).
std::vector<std::pair<std::string, plot::Chart>> model_error_charts(const SweepResult& result, const std::vector<Candidate>& algorithms,
                                                                    const topo::Topology& topology, const sim::SimParams& params);

// The simulated time's error against each measured point, in percent, with the starting and the fitted
// parameters; fitted and held-out points as separate series.
plot::Chart calibration_chart(const CalibrationResult& result, const std::string& title);

}  // namespace ccforge::validate
