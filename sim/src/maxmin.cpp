#include "maxmin.hpp"

#include <algorithm>

namespace ccforge::sim {
namespace {

// Relative slack under which a constraint counts as saturated, so rounding cannot leave a variable
// unfrozen forever.
constexpr double kSaturationSlack = 1e-12;

}  // namespace

const std::vector<double>& MaxMinSolver::solve(const MaxMinProblem& problem) {
  const std::size_t nvars = problem.bound.size();
  const std::size_t ncons = problem.capacity.size();
  rate_.assign(nvars, 0.0);
  remaining_.assign(problem.capacity.begin(), problem.capacity.end());
  active_.assign(ncons, 0.0);  // summed weight of unfrozen variables per constraint
  saturated_.assign(ncons, 0);
  auto weight = [&](std::size_t v) { return problem.weight.empty() ? 1.0 : problem.weight[v]; };
  // The unfrozen variables, in increasing order (the order their weights leave active_ in), so that a
  // round walks only those: most freeze in the first rounds.
  unfrozen_.clear();
  for (std::size_t v = 0; v < nvars; ++v) {
    if (problem.uses[v].empty()) {
      rate_[v] = problem.bound[v];
      continue;
    }
    unfrozen_.push_back(static_cast<std::uint32_t>(v));
    for (std::uint32_t c : problem.uses[v]) active_[c] += weight(v);
  }
  // All unfrozen variables share one level; each round raises it to the next saturation point.
  double level = 0.0;
  while (!unfrozen_.empty()) {
    double next = kUnbounded;
    for (std::size_t c = 0; c < ncons; ++c) {
      if (active_[c] > 0.0) next = std::min(next, level + remaining_[c] / active_[c]);
    }
    for (std::uint32_t v : unfrozen_) next = std::min(next, problem.bound[v]);
    const double delta = next - level;
    for (std::size_t c = 0; c < ncons; ++c) remaining_[c] -= delta * active_[c];
    level = next;
    for (std::size_t c = 0; c < ncons; ++c) {
      saturated_[c] = active_[c] > 0.0 && remaining_[c] <= kSaturationSlack * problem.capacity[c];
    }
    std::size_t kept = 0;
    for (std::uint32_t v : unfrozen_) {
      const bool at_bound = problem.bound[v] <= level;
      const bool blocked = std::any_of(problem.uses[v].begin(), problem.uses[v].end(),
                                       [&](std::uint32_t c) { return saturated_[c] != 0; });
      if (!at_bound && !blocked) {
        unfrozen_[kept++] = v;
        continue;
      }
      rate_[v] = level;
      for (std::uint32_t c : problem.uses[v]) active_[c] -= weight(v);
    }
    unfrozen_.resize(kept);
  }
  return rate_;
}

std::vector<double> solve_maxmin(const MaxMinProblem& problem) {
  MaxMinSolver solver;
  return solver.solve(problem);
}

}  // namespace ccforge::sim
