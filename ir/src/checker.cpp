// check(): structure and limits first; the ordering and postcondition phases need a well-formed
// step graph, and race/postcondition need an acyclic one.
#include "check_phases.hpp"

namespace ccforge::ir {

CheckReport check(const Algorithm& algo, const Limits& limits) {
  CheckReport report;
  IssueSink sink(algo, report.issues);
  if (!check_structure(algo, limits, sink)) {
    report.notes.push_back("deadlock, races and postcondition were not checked: fix the structure first");
    return report;
  }
  check_executor_buffers(algo, sink);
  const StepGraph graph(algo);
  check_deadlock(graph, sink);
  if (!graph.acyclic()) {
    report.notes.push_back("races and postcondition were not checked: the algorithm deadlocks");
    return report;
  }
  std::vector<bool> modes;
  if (algo.outofplace) modes.push_back(false);
  if (algo.inplace) modes.push_back(true);
  if (modes.empty()) {
    report.notes.push_back("inplace=0 and outofplace=0: the executor never selects it; checked as out-of-place");
    modes.push_back(false);
  }
  for (bool inplace : modes) {
    check_races(algo, graph, inplace, sink);
    check_postcondition(algo, graph, inplace, sink, report.notes);
  }
  return report;
}

}  // namespace ccforge::ir
