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
  frozen_.assign(nvars, 0);
  auto weight = [&](std::size_t v) { return problem.weight.empty() ? 1.0 : problem.weight[v]; };
  // The variables that have constraints, in increasing order (the order their weights enter active_ in).
  unfrozen_.clear();
  first_user_.assign(ncons + 1, 0);
  for (std::size_t v = 0; v < nvars; ++v) {
    if (problem.uses[v].empty()) {
      rate_[v] = problem.bound[v];
      continue;
    }
    unfrozen_.push_back(static_cast<std::uint32_t>(v));
    for (std::uint32_t c : problem.uses[v]) {
      active_[c] += weight(v);
      ++first_user_[c + 1];
    }
  }
  // Per constraint its variables (users_[first_user_[c] .. first_user_[c + 1])), so that a saturated
  // constraint freezes its own variables instead of every variable looking at all of its constraints.
  for (std::size_t c = 0; c < ncons; ++c) first_user_[c + 1] += first_user_[c];
  users_.resize(first_user_[ncons]);
  fill_.assign(first_user_.begin(), first_user_.end() - 1);
  for (std::uint32_t v : unfrozen_)
    for (std::uint32_t c : problem.uses[v]) users_[fill_[c]++] = v;
  // The constraints that still have unfrozen variables; the others no longer matter.
  live_.clear();
  for (std::size_t c = 0; c < ncons; ++c)
    if (active_[c] > 0.0) live_.push_back(static_cast<std::uint32_t>(c));
  // The variables by bound: those the level reaches are a prefix of the ones still unfrozen.
  by_bound_ = unfrozen_;
  std::sort(by_bound_.begin(), by_bound_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return problem.bound[a] < problem.bound[b] || (problem.bound[a] == problem.bound[b] && a < b);
  });
  std::size_t lowest = 0;  // by_bound_[lowest] is the unfrozen variable of least bound
  std::size_t left = unfrozen_.size();
  // All unfrozen variables share one level; each round raises it to the next saturation point.
  double level = 0.0;
  while (left > 0) {
    double next = kUnbounded;
    for (std::uint32_t c : live_) next = std::min(next, level + remaining_[c] / active_[c]);
    while (frozen_[by_bound_[lowest]] != 0) ++lowest;
    next = std::min(next, problem.bound[by_bound_[lowest]]);
    const double delta = next - level;
    for (std::uint32_t c : live_) remaining_[c] -= delta * active_[c];
    level = next;
    // Freeze the variables at their bound or on a saturated constraint, in increasing order.
    freezing_.clear();
    for (std::uint32_t c : live_) {
      if (!(remaining_[c] <= kSaturationSlack * problem.capacity[c])) continue;
      for (std::uint32_t k = first_user_[c]; k < first_user_[c + 1]; ++k) {
        const std::uint32_t v = users_[k];
        if (frozen_[v] == 0) {
          frozen_[v] = 1;
          freezing_.push_back(v);
        }
      }
    }
    for (std::size_t k = lowest; k < by_bound_.size() && problem.bound[by_bound_[k]] <= level; ++k) {
      const std::uint32_t v = by_bound_[k];
      if (frozen_[v] == 0) {
        frozen_[v] = 1;
        freezing_.push_back(v);
      }
    }
    std::sort(freezing_.begin(), freezing_.end());
    for (std::uint32_t v : freezing_) {
      rate_[v] = level;
      for (std::uint32_t c : problem.uses[v]) active_[c] -= weight(v);
    }
    left -= freezing_.size();
    std::erase_if(live_, [&](std::uint32_t c) { return !(active_[c] > 0.0); });
  }
  return rate_;
}

std::vector<double> solve_maxmin(const MaxMinProblem& problem) {
  MaxMinSolver solver;
  return solver.solve(problem);
}

}  // namespace ccforge::sim
