// Max-min fair sharing (progressive filling): every unfrozen variable grows at the same rate until a
// constraint saturates or the variable reaches its own bound; saturated variables freeze, the rest go
// on. Pure: dense indices and doubles only, nothing about GPUs or links.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ccforge::sim {

struct MaxMinProblem {
  std::vector<double> capacity;               // per constraint
  std::vector<double> bound;                  // per variable; infinity when unbounded
  std::vector<std::vector<std::uint32_t>> uses;  // per variable: the constraints it consumes (weight 1)
};

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Rates per variable. A variable that uses no constraint gets its bound (or infinity).
std::vector<double> solve_maxmin(const MaxMinProblem& problem);

}  // namespace ccforge::sim
