// Which of calibrate's parameters the measured points can tell apart: collinearity diagnostics on the
// fit's Jacobian (Belsley, Kuh & Welsch, "Regression Diagnostics", Wiley 1980, ch. 3).
#pragma once

#include <vector>

#include <Eigen/Core>

#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

struct Separable {
  std::vector<FitParam> fitted;  // in the order given
  std::vector<HeldParam> held;   // left at their defaults, with the reason
};

// `jacobian`: d(residual)/d(normalised parameter), one column per entry of `params`, none all-zero.
// `reach`: per parameter, how many simulated points it moves across collectives (fit_model's probe).
// Holds parameters until the column-scaled Jacobian's largest condition index is at most 10.
Separable separable_params(const Eigen::MatrixXd& jacobian, const std::vector<FitParam>& params, const std::vector<int>& reach);

}  // namespace ccforge::validate
