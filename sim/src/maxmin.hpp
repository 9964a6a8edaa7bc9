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
  // Per variable: the constraints it consumes. Variables are 0..bound.size()-1; rows past that are
  // ignored (a caller may keep them to reuse their allocations).
  std::vector<std::vector<std::uint32_t>> uses;
  // Per variable: how many identical flows it stands for (it loads each constraint weight x rate);
  // empty means 1 for all.
  std::vector<double> weight;
};

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Solves many problems one after another without allocating once its buffers have grown (the
// simulator re-solves after nearly every event).
class MaxMinSolver {
 public:
  // Rate of one member flow per variable, valid until the next solve(). A variable that uses no
  // constraint gets its bound (or infinity).
  const std::vector<double>& solve(const MaxMinProblem& problem);

 private:
  std::vector<double> rate_, remaining_, active_;
  std::vector<char> frozen_;  // char, not vector<bool>: tested in the inner loops
  std::vector<std::uint32_t> unfrozen_, by_bound_, live_, freezing_;
  std::vector<std::uint32_t> first_user_, users_, fill_;  // per constraint its variables (CSR)
};

// One-off form of MaxMinSolver::solve.
std::vector<double> solve_maxmin(const MaxMinProblem& problem);

}  // namespace ccforge::sim
