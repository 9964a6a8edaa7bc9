// Summary numbers for `ccforge ir show`.
#include <algorithm>

#include "check_phases.hpp"
#include "op_traits.hpp"

namespace ccforge::ir {
namespace {

int longest_chain(const StepGraph& graph) {
  std::vector<int> depth(static_cast<std::size_t>(graph.size()), 0);
  int longest = 0;
  for (int v : graph.topo_order()) {
    int d = 0;
    for (int p : graph.preds(v)) d = std::max(d, depth[static_cast<std::size_t>(p)]);
    depth[static_cast<std::size_t>(v)] = d + 1;
    longest = std::max(longest, d + 1);
  }
  return longest;
}

}  // namespace

AlgorithmStats compute_stats(const Algorithm& algo) {
  AlgorithmStats stats;
  const auto n = algo.gpus.size();
  stats.per_rank.resize(n);
  stats.chunks_sent.assign(n * n, 0);
  for (std::size_t r = 0; r < n; ++r) {
    const GpuProgram& gpu = algo.gpus[r];
    stats.per_rank[r].tbs = static_cast<int>(gpu.tbs.size());
    for (const ThreadBlock& tb : gpu.tbs) {
      stats.max_steps_per_tb = std::max(stats.max_steps_per_tb, static_cast<int>(tb.steps.size()));
      for (const Step& st : tb.steps) {
        ++stats.per_rank[r].steps;
        stats.per_rank[r].nops += st.type == OpType::Nop;
        if (traits(st.type).sends && tb.send_peer >= 0 && static_cast<std::size_t>(tb.send_peer) < n)
          stats.chunks_sent[r * n + static_cast<std::size_t>(tb.send_peer)] += st.count;
      }
    }
    stats.total_steps += stats.per_rank[r].steps;
  }
  std::vector<CheckIssue> ignored;
  IssueSink sink(algo, ignored);
  if (check_structure(algo, Limits{}, sink)) {
    const StepGraph graph(algo);
    if (graph.acyclic()) stats.critical_path_steps = longest_chain(graph);
  }
  return stats;
}

}  // namespace ccforge::ir
