#include "maxmin.hpp"

#include <algorithm>

namespace ccforge::sim {
namespace {

// Relative slack under which a constraint counts as saturated, so rounding cannot leave a variable
// unfrozen forever.
constexpr double kSaturationSlack = 1e-12;

}  // namespace

std::vector<double> solve_maxmin(const MaxMinProblem& problem) {
  const std::size_t nvars = problem.bound.size();
  const std::size_t ncons = problem.capacity.size();
  std::vector<double> rate(nvars, 0.0);
  std::vector<bool> frozen(nvars, false);
  std::vector<double> remaining = problem.capacity;
  std::vector<double> active(ncons, 0.0);  // summed weight of unfrozen variables per constraint
  auto weight = [&](std::size_t v) { return problem.weight.empty() ? 1.0 : problem.weight[v]; };
  std::size_t unfrozen = 0;
  for (std::size_t v = 0; v < nvars; ++v) {
    if (problem.uses[v].empty()) {
      rate[v] = problem.bound[v];
      frozen[v] = true;
      continue;
    }
    ++unfrozen;
    for (std::uint32_t c : problem.uses[v]) active[c] += weight(v);
  }
  // All unfrozen variables share one level; each round raises it to the next saturation point.
  double level = 0.0;
  std::vector<bool> saturated(ncons, false);
  while (unfrozen > 0) {
    double next = kUnbounded;
    for (std::size_t c = 0; c < ncons; ++c) {
      if (active[c] > 0.0) next = std::min(next, level + remaining[c] / active[c]);
    }
    for (std::size_t v = 0; v < nvars; ++v) {
      if (!frozen[v]) next = std::min(next, problem.bound[v]);
    }
    const double delta = next - level;
    for (std::size_t c = 0; c < ncons; ++c) remaining[c] -= delta * active[c];
    level = next;
    for (std::size_t c = 0; c < ncons; ++c) {
      saturated[c] = active[c] > 0.0 && remaining[c] <= kSaturationSlack * problem.capacity[c];
    }
    for (std::size_t v = 0; v < nvars; ++v) {
      if (frozen[v]) continue;
      const bool at_bound = problem.bound[v] <= level;
      const bool blocked = std::any_of(problem.uses[v].begin(), problem.uses[v].end(),
                                       [&](std::uint32_t c) { return saturated[c]; });
      if (!at_bound && !blocked) continue;
      rate[v] = level;
      frozen[v] = true;
      --unfrozen;
      for (std::uint32_t c : problem.uses[v]) active[c] -= weight(v);
    }
  }
  return rate;
}

}  // namespace ccforge::sim
