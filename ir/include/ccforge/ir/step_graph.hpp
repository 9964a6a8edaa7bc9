// The happens-before graph of an algorithm as msccl-executor-nccl runs one tile iteration of it: one
// node per step, numbered rank by rank, tb by tb, step by step; edges for tb program order, explicit
// dependencies (depid/deps) and send -> matching receive (the k-th send on (src, dst, channel) feeds the
// k-th receive, formats.md §1.4). The one source of that structure: the checker and the stats run on
// it, and so do sim's MSCCL lowering and its time floor, so that the floor's soundness does not rest on
// two derivations agreeing.
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
  // dependee() of a step whose depid/deps names no step of its rank.
  static constexpr int kMissing = -2;

  // Ranks and tb ids must equal their positions (the reader and the builder ensure it). Nothing else
  // needs to be valid: a dependency naming no step is kMissing and no edge, and a connection's sends
  // and receives pair up to the shorter list (connections() keeps both lists whole).
  explicit StepGraph(const Algorithm& algo);

  int size() const { return static_cast<int>(refs_.size()); }
  int node(int rank, int tb, int step) const { return tb_base_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(tb)] + step; }
  const StepRef& ref(int node) const { return refs_[static_cast<std::size_t>(node)]; }
  const Step& step(int node) const;
  // Into a step: the previous step of its tb, its dependee, its matched send (those present, in this order).
  std::span<const int> preds(int node) const;
  std::span<const int> succs(int node) const;
  // The step this one waits on through depid/deps: -1 none, kMissing when it names no step.
  int dependee(int node) const { return dependee_[static_cast<std::size_t>(node)]; }
  // The send a receive is paired with, -1 none.
  int matched_send(int recv_node) const { return matched_send_[static_cast<std::size_t>(recv_node)]; }

  // A (src rank, dst rank, channel) connection: its sending and its receiving steps in program order.
  struct Connection {
    int src, dst, channel;
    std::vector<int> sends, recvs;
  };
  // Every connection a step sends or receives on, ordered by (src, dst, channel).
  const std::vector<Connection>& connections() const { return connections_; }

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
  std::vector<int> dependee_;
  std::vector<int> matched_send_;
  std::vector<Connection> connections_;
  std::vector<int> pred_start_, pred_list_, succ_start_, succ_list_;
  std::vector<int> topo_;
};

}  // namespace ccforge::ir
