// The time floor's dependency graph (time_floor.cpp): one tile iteration as the lowering
// (msccl_lowering.cpp) wires it along ir::StepGraph, laid out in topological order, and the two walks
// over it the floor needs: when each tb may start in the first iteration (and when that iteration ends),
// and the period every full tile adds to a tb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "floor_steps.hpp"

namespace ccforge::sim {

class FloorGraph {
 public:
  explicit FloorGraph(const FloorSteps& steps);

  // Earliest times in the first iteration at some bytes per chunk: per tb when its first step may
  // start and when its first send's data may start to flow (its alpha paid; 0 for a tb that sends
  // nothing or whose send is left out), and the latest step end.
  struct FirstIteration {
    std::vector<double> tb_start, tb_first_flow;
    double longest = 0.0;
  };
  // The first iteration at each of `tiles` bytes per chunk.
  std::vector<FirstIteration> first_iterations(const std::vector<double>& tiles);

  // Per tb, its period at `tile` bytes per chunk (0 where its own chain bounds it; see the definition).
  std::vector<double> tile_periods(double tile);

 private:
  // Positions and edge offsets: 32 bits (an algorithm past 4 G steps is refused), so that the graph of
  // a 128-rank ring (a million steps, two million edges) stays small and its walks read less memory.
  using Index = std::uint32_t;
  // An edge into a step's start, or into its end (a forwarding receive ends only after the incoming
  // data is through).
  struct Edge {
    Index from;
    bool from_head;  // the sender's first line, not its end
    bool handoff;    // a depid/deps wait: plus the flag handoff (extra_[1])
    bool to_end;
  };

  void build();
  void run_first_iteration_batch(const double* tiles, std::size_t k, FirstIteration* out);

  const FloorSteps& steps_;
  std::size_t tbs_ = 0;
  // The first iteration's graph by position in topological order (steps on a cycle left out).
  std::vector<FloorStep> steps_in_order_;
  std::vector<Index> tb_in_order_;        // per position, its step's tb
  std::vector<Edge> edges_;               // into position k: edges_[edge_first_[k] .. edge_first_[k + 1])
  std::vector<Index> edge_first_;
  double extra_[2] = {0.0, 0.0};          // seconds an edge adds: none, the flag handoff
  std::size_t edges_total_ = 0;           // with those into steps left out
  std::vector<std::size_t> tb_first_pos_, tb_last_pos_;  // per tb; past the end when not ordered
  std::vector<char> leaves_own_chain_;    // per tb: a path may leave its chain and come back
  std::vector<double> head_, end_;        // per position (and size), scratch of the walks
};

}  // namespace ccforge::sim
