// The happens-before graph of an algorithm: one node per step, edges for tb program order, explicit
// dependencies (depid/deps) and send -> matching receive (the k-th send on (src, dst, channel) feeds
// the k-th receive). The checker and the stats are computed on it.
#pragma once

#include <span>
#include <vector>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

struct StepRef {
  int rank;
  int tb;
  int step;
};

class StepGraph {
 public:
  // Requires a structurally valid algorithm (valid peers, deps, paired connections).
  explicit StepGraph(const Algorithm& algo);

  int size() const { return static_cast<int>(refs_.size()); }
  int node(int rank, int tb, int step) const { return tb_base_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(tb)] + step; }
  const StepRef& ref(int node) const { return refs_[static_cast<std::size_t>(node)]; }
  const Step& step(int node) const;
  std::span<const int> preds(int node) const;
  std::span<const int> succs(int node) const;
  int matched_send(int recv_node) const { return matched_send_[static_cast<std::size_t>(recv_node)]; }

  // Kahn order (deterministic); shorter than size() when the graph has a cycle.
  const std::vector<int>& topo_order() const { return topo_; }
  bool acyclic() const { return topo_.size() == refs_.size(); }
  // One cycle, as nodes in wait order, when not acyclic.
  std::vector<int> find_cycle() const;

 private:
  void add_edges(const Algorithm& algo);
  void build_csr(const std::vector<std::pair<int, int>>& edges);
  void sort_topologically();

  const Algorithm* algo_;
  std::vector<std::vector<int>> tb_base_;
  std::vector<StepRef> refs_;
  std::vector<int> matched_send_;
  std::vector<int> pred_start_, pred_list_, succ_start_, succ_list_;
  std::vector<int> topo_;
};

}  // namespace ccforge::ir
