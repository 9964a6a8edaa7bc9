// `ccforge calibrate`: Levenberg-Marquardt on relative errors over the physical parameters the data can
// identify (identifiability.cpp), each searched in [0, 1] of its physical range; the Jacobian is taken by finite differences, re-running the
// simulator (a few ms per point), since the simulator has no derivatives.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include <Eigen/Dense>

#include "ccforge/validate/validate.hpp"
#include "fit_model.hpp"
#include "identifiability.hpp"

namespace ccforge::validate {
namespace {

// Forward-difference step in normalised units: 1% of the physical range, coarse enough to step over the
// picosecond quantisation of simulated times.
constexpr double kJacobianStep = 0.01;
// LM damping start and its change on rejected/accepted steps (Marquardt 1963's usual factors).
constexpr double kInitialDamping = 1e-2, kDampingUp = 4.0, kDampingDown = 3.0;
constexpr int kMaxDampingTries = 12;

Eigen::MatrixXd jacobian(const FitModel& model, const Eigen::VectorXd& u, const Eigen::VectorXd& r) {
  Eigen::MatrixXd J(r.size(), u.size());
  for (Eigen::Index k = 0; k < u.size(); ++k) {
    Eigen::VectorXd v = u;
    const double h = u[k] + kJacobianStep <= 1.0 ? kJacobianStep : -kJacobianStep;
    v[k] += h;
    J.col(k) = (model.residuals(v) - r) / h;
  }
  return J;
}

// One LM iteration: raises the damping until a step inside the bounds lowers the cost. False: no such step.
bool lm_step(const FitModel& model, Eigen::VectorXd& u, Eigen::VectorXd& r, double& damping) {
  const Eigen::MatrixXd J = jacobian(model, u, r);
  const Eigen::MatrixXd A = J.transpose() * J;
  const Eigen::VectorXd g = J.transpose() * r;
  // The small floor keeps a parameter the data cannot see (zero column) from making A singular.
  const Eigen::VectorXd scale = A.diagonal().array() + 1e-9;
  for (int attempt = 0; attempt < kMaxDampingTries; ++attempt, damping *= kDampingUp) {
    Eigen::MatrixXd M = A;
    M.diagonal() += damping * scale;
    const Eigen::VectorXd trial = (u - M.ldlt().solve(g)).cwiseMax(0.0).cwiseMin(1.0);
    const Eigen::VectorXd r_trial = model.residuals(trial);
    if (r_trial.squaredNorm() < r.squaredNorm() * (1.0 - 1e-9)) {
      u = trial;
      r = r_trial;
      damping /= kDampingDown;
      return true;
    }
  }
  return false;
}

// One point per (collective, algorithm, file, size): in-place and out-of-place times averaged.
std::vector<Measurement> average_placements(const std::vector<Measurement>& measured) {
  std::map<std::tuple<std::string, std::string, std::string, ByteCount>, std::pair<Measurement, int>> groups;
  for (const Measurement& m : measured) {
    auto [it, fresh] = groups.try_emplace({m.collective, m.algorithm, m.file, m.size_bytes}, m, 0);
    if (!fresh) it->second.first.time_us += m.time_us;
    ++it->second.second;
  }
  std::vector<Measurement> points;
  for (auto& [key, group] : groups) {
    group.first.time_us /= group.second;
    points.push_back(group.first);
  }
  return points;  // map order: by collective, algorithm, file, then size ascending
}

// Alternate sizes of each (collective, algorithm) series are held back from the fit.
std::vector<bool> held_out_mask(const std::vector<Measurement>& points, Holdout holdout) {
  std::vector<bool> held(points.size(), false);
  for (std::size_t i = 1; i < points.size() && holdout == Holdout::Alternate; ++i) {
    const bool same_series = points[i].collective == points[i - 1].collective && points[i].algorithm == points[i - 1].algorithm &&
                             points[i].file == points[i - 1].file;
    held[i] = same_series && !held[i - 1];
  }
  return held;
}

// Splits `params` into those some fitted point's simulated time depends on and the rest: a parameter
// moved by a quarter of its range that changes no point cannot be identified by these measurements.
std::pair<std::vector<FitParam>, std::vector<std::string>> identifiable(const FitModel& probe, const std::vector<FitParam>& params) {
  const Eigen::VectorXd u0 = probe.initial(), s0 = probe.simulated(u0);
  std::vector<FitParam> kept;
  std::vector<std::string> dropped;
  for (Eigen::Index k = 0; k < u0.size(); ++k) {
    Eigen::VectorXd u = u0;
    u[k] += u0[k] < 0.5 ? 0.25 : -0.25;
    const bool moves = (probe.simulated(u) - s0).cwiseAbs().maxCoeff() > 1e-9 * s0.cwiseAbs().maxCoeff();
    const FitParam& p = params[static_cast<std::size_t>(k)];
    if (moves) kept.push_back(p); else dropped.push_back(p.name);
  }
  return {kept, dropped};
}

// The fitted sizes of NCCL's own runs, for each collective NCCL's baseline simulates: where a parameter
// reaches beyond the measured collective.
std::vector<Measurement> across_collectives(const std::vector<Measurement>& fit_points) {
  std::vector<Measurement> probe;
  for (const char* coll : {"allreduce", "allgather", "reducescatter", "broadcast", "reduce"})
    for (Measurement m : fit_points)
      if (m.algorithm == "NCCL") m.collective = coll, probe.push_back(m);
  return probe;
}

// Per parameter, how many of `model`'s points its Jacobian column moves.
std::vector<int> points_moved(const FitModel& model) {
  const Eigen::VectorXd u0 = model.initial();
  const Eigen::MatrixXd J = jacobian(model, u0, model.residuals(u0));
  std::vector<int> moved;
  for (Eigen::Index k = 0; k < J.cols(); ++k) moved.push_back(static_cast<int>((J.col(k).array() != 0.0).count()));
  return moved;
}

}  // namespace

std::optional<double> mean_abs_error_pct(const std::vector<CalibrationPoint>& points, bool held_out, bool after) {
  double sum = 0.0;
  int n = 0;
  for (const CalibrationPoint& p : points) {
    if (p.held_out != held_out) continue;
    sum += std::abs((after ? p.after_us : p.before_us) - p.measured_us) / p.measured_us;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n * 100.0;
}

CalibrationResult calibrate(const std::filesystem::path& topology_file, const topo::LoadOptions& load,
                            const std::vector<Measurement>& measured, const std::vector<Candidate>& algorithms,
                            const CalibrationOptions& options) {
  const std::vector<Measurement> all = average_placements(measured);
  const std::vector<bool> held = held_out_mask(all, options.holdout);
  std::vector<Measurement> fit_points;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!held[i]) fit_points.push_back(all[i]);

  CalibrationResult result;
  const FitModel probe(topology_file, load, options.params, fit_points, algorithms, options.base);
  const auto [visible, not_identified] = identifiable(probe, options.params);
  result.not_identified = not_identified;
  const FitModel visible_model(topology_file, load, visible, fit_points, algorithms, options.base);
  const Eigen::VectorXd v0 = visible_model.initial();
  const FitModel reach_model(topology_file, load, visible, across_collectives(fit_points), algorithms, options.base);
  Separable separable = visible.empty() ? Separable{}
                                        : separable_params(jacobian(visible_model, v0, visible_model.residuals(v0)), visible,
                                                           points_moved(reach_model));
  result.held = std::move(separable.held);
  const std::vector<FitParam>& params = separable.fitted;
  const FitModel everything(topology_file, load, params, all, algorithms, options.base);
  const FitModel fit(topology_file, load, params, fit_points, algorithms, options.base);
  const Eigen::VectorXd u0 = fit.initial();
  Eigen::VectorXd u = u0, r = fit.residuals(u);
  double damping = kInitialDamping;
  while (!params.empty() && result.iterations < options.max_iterations && lm_step(fit, u, r, damping)) ++result.iterations;

  const Eigen::VectorXd before = everything.simulated(u0), after = everything.simulated(u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    result.points.push_back({all[i].collective, all[i].algorithm, all[i].size_bytes, all[i].time_us, before[k], after[k], held[i]});
  }
  result.initial = fit.params_at(u0, "");
  result.fitted = fit.params_at(u, options.source);
  return result;
}

void write_calibrated_profile(const CalibrationResult& result, const std::filesystem::path& profile) {
  const ParamTable table(result.fitted);
  topo::write_profile({&table}, profile);
}

}  // namespace ccforge::validate
