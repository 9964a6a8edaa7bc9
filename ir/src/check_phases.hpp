// The checker's phases; checker.cpp runs them in order and stops before the graph phases when the
// structure is too broken to build the step graph.
#pragma once

#include <string>
#include <vector>

#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/step_graph.hpp"

namespace ccforge::ir {

// Collects issues, filling in the source line of the step (or tb, or gpu) they are about.
class IssueSink {
 public:
  IssueSink(const Algorithm& algo, std::vector<CheckIssue>& issues) : algo_(algo), issues_(issues) {}
  void add(std::string rule, int rank, int tb, int step, std::string message);
  void add(std::string rule, const StepRef& where, std::string message) {
    add(std::move(rule), where.rank, where.tb, where.step, std::move(message));
  }
  std::size_t count() const { return issues_.size(); }

 private:
  const Algorithm& algo_;
  std::vector<CheckIssue>& issues_;
};

std::string describe(const StepRef& where);  // "rank 1 tb 2 step 3"

// Returns false when a problem makes the step graph meaningless (bad peer, dep, offset, unpaired
// connection); limit violations do not.
bool check_structure(const Algorithm& algo, const Limits& limits, IssueSink& sink);
bool check_connections(const Algorithm& algo, IssueSink& sink);
// Declared chunk counts against the executor's buffers for nchunksperloop (check_executor_buffers.cpp).
void check_executor_buffers(const Algorithm& algo, IssueSink& sink);

void check_deadlock(const StepGraph& graph, IssueSink& sink);
void check_races(const Algorithm& algo, const StepGraph& graph, bool inplace, IssueSink& sink);
void check_postcondition(const Algorithm& algo, const StepGraph& graph, bool inplace, IssueSink& sink,
                         std::vector<std::string>& notes);

}  // namespace ccforge::ir
