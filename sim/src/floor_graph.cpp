#include "floor_graph.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "ccforge/ir/step_graph.hpp"

namespace ccforge::sim {

FloorGraph::FloorGraph(const FloorSteps& steps) : steps_(steps), tbs_(steps.chains().size()) { build(); }

// The first tile iteration as the lowering wires it, along the step graph: tb order, depid/deps
// through a flag handoff, a send feeding its matched receive (cut-through from the first line where
// the receiver forwards per line). Steps are numbered tb by tb, as the graph's nodes. Every list here
// is flat (offsets per step): a 128-rank ring has a million steps, and a list per step was most of
// the floors phase's allocations.
void FloorGraph::build() {
  const std::vector<std::vector<FloorStep>>& chains = steps_.chains();
  std::vector<const FloorStep*> entry;  // per step, numbered tb by tb
  std::vector<Index> tb_of;
  std::vector<std::size_t> tb_first;
  for (std::size_t t = 0; t < tbs_; ++t) {
    tb_first.push_back(entry.size());
    for (const FloorStep& e : chains[t]) {
      entry.push_back(&e);
      tb_of.push_back(static_cast<Index>(t));
    }
  }
  const std::size_t n = entry.size();
  // At most 4 edges into a step (tb order, dependee, a forwarding receive's two from its sender).
  if (4 * n + 1 > std::numeric_limits<Index>::max()) throw std::length_error("time floor: more than 1 G steps");
  const ir::StepGraph graph(steps_.algorithm());
  const bool per_line = forwards_per_line(steps_.algorithm().protocol);
  extra_[1] = steps_.runtime().dep_handoff.seconds();
  std::vector<Edge> in;  // into step i: in[in_first[i] .. in_first[i + 1])
  std::vector<Index> in_first(n + 1, 0);
  in.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const int node = static_cast<int>(i);
    if (entry[i]->step > 0) in.push_back({static_cast<Index>(i - 1), false, false, false});
    const int dependee = graph.dependee(node);
    if (dependee >= 0) in.push_back({static_cast<Index>(dependee), false, true, false});
    const int sender = graph.matched_send(node);
    if (sender >= 0) {
      const auto snd = static_cast<Index>(sender);
      if (per_line && ir::op_sends(entry[i]->type)) {
        in.push_back({snd, true, false, false});
        in.push_back({snd, false, false, true});
      } else {
        in.push_back({snd, false, false, false});
      }
    }
    in_first[i + 1] = static_cast<Index>(in.size());
  }
  edges_total_ = in.size();
  // A path longer than a tb's own chain leaves it after some step and re-enters at a later one: per
  // tb, whether its first step with an edge out to another tb comes before its last step with one in.
  std::vector<std::size_t> first_out(tbs_, n), last_in(tbs_, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (Index x = in_first[i]; x < in_first[i + 1]; ++x) {
      const Edge& e = in[x];
      if (tb_of[e.from] == tb_of[i]) continue;
      first_out[tb_of[e.from]] = std::min<std::size_t>(first_out[tb_of[e.from]], e.from);
      last_in[tb_of[i]] = std::max(last_in[tb_of[i]], i);
    }
  for (std::size_t t = 0; t < tbs_; ++t) leaves_own_chain_.push_back(first_out[t] < last_in[t]);
  // Topological order (Kahn, ready steps taken last in first out); steps on a dependency cycle are left
  // out, which only lowers the bound (simulate reports such an algorithm as a deadlock). Out-edges per
  // step in the order of their targets, as the in-edges list them.
  std::vector<Index> pending(n, 0), out_first(n + 1, 0), out(in.size());
  for (std::size_t i = 0; i < n; ++i) pending[i] = in_first[i + 1] - in_first[i];
  for (const Edge& e : in) ++out_first[e.from + 1];
  for (std::size_t i = 0; i < n; ++i) out_first[i + 1] += out_first[i];
  {
    std::vector<Index> fill(out_first.begin(), out_first.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (Index x = in_first[i]; x < in_first[i + 1]; ++x) out[fill[in[x].from]++] = static_cast<Index>(i);
  }
  std::vector<Index> ready, order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(static_cast<Index>(i));
  while (!ready.empty()) {
    const Index i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (Index x = out_first[i]; x < out_first[i + 1]; ++x)
      if (--pending[out[x]] == 0) ready.push_back(out[x]);
  }
  // The walks go by position in that order: steps and their in-edges laid out that way (every
  // predecessor of an ordered step is ordered), so a walk reads memory front to back.
  const auto unordered = static_cast<Index>(order.size());
  std::vector<Index> position(n, unordered);
  for (Index k = 0; k < unordered; ++k) position[order[k]] = k;
  edge_first_.assign(order.size() + 1, 0);
  steps_in_order_.reserve(order.size());
  tb_in_order_.reserve(order.size());
  edges_.reserve(in.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    steps_in_order_.push_back(*entry[order[k]]);
    tb_in_order_.push_back(tb_of[order[k]]);
    for (Index x = in_first[order[k]]; x < in_first[order[k] + 1]; ++x) {
      Edge e = in[x];
      e.from = position[e.from];
      edges_.push_back(e);
    }
    edge_first_[k + 1] = static_cast<Index>(edges_.size());
  }
  for (std::size_t t = 0; t < tbs_; ++t) {
    tb_first_pos_.push_back(chains[t].empty() ? order.size() : position[tb_first[t]]);
    tb_last_pos_.push_back(chains[t].empty() ? order.size() : position[tb_first[t] + chains[t].size() - 1]);
  }
  head_.assign(order.size(), 0.0);
  end_.assign(order.size(), 0.0);
}

// The period of a tb: the longest path through one iteration's graph (the one build() wires, with
// `tile` bytes per chunk) from its first step's start to its last step's end. Why each iteration pays
// it: the lowering makes a tb's first step of iteration i+1 wait for its last step of iteration i
// (msccl_lowering.cpp, last_of_tb), and every edge of that graph holds in every iteration, not only
// the first: tb order, depid/deps and the k-th send -> k-th receive pairing are wired per iteration
// among that iteration's own steps. So in each full-tile iteration the tb's last step ends no earlier
// than its first step's start plus this path, each step on it costing at least its alpha and its
// bytes at its ceiling rate. It is the tb's own chain unless its steps wait on other tbs that in turn
// wait on its earlier steps (a tree allreduce: a leaf's receive from its parent waits for the root's
// reduction of the leaf's own send of the same tile). Paths through steps on a dependency cycle (not
// in topological order) are left out, which only shortens them.
// Each tb costs a pass over the steps between its first and last in topological order: a large ring
// spans nearly the whole graph for every tb. So tbs are taken by ascending span until
// kPeriodPassesPerAlgorithm whole-graph passes are spent; a tb left out keeps 0 (its own chain, a
// separate term, still bounds it). A cost limit, not a model constant: it only loosens the bound.
std::vector<double> FloorGraph::tile_periods(double tile) {
  constexpr double kUnreached = -std::numeric_limits<double>::infinity();
  constexpr std::size_t kPeriodPassesPerAlgorithm = 4;
  const std::vector<std::vector<FloorStep>>& chains = steps_.chains();
  const std::size_t ordered = steps_in_order_.size();
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> spans;  // (steps spanned, tb, first position)
  for (std::size_t t = 0; t < tbs_; ++t) {
    if (chains[t].empty() || !leaves_own_chain_[t]) continue;  // its period is its own chain
    const std::size_t from = tb_first_pos_[t], to = tb_last_pos_[t];
    if (to >= ordered || from >= ordered) continue;
    spans.emplace_back(to - from + 1, t, from);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<double> periods(tbs_, 0.0);
  std::size_t budget = kPeriodPassesPerAlgorithm * (ordered + edges_total_);
  for (const auto& [span, t, from] : spans) {
    if (span > budget) break;
    budget -= span;
    const std::size_t to = from + span - 1;
    // Steps between the two in topological order are all a path from one to the other can visit.
    for (std::size_t k = from; k <= to; ++k) {
      double begin = k == from ? 0.0 : kUnreached, finish_after = kUnreached;
      if (k != from) {
        for (Index x = edge_first_[k]; x < edge_first_[k + 1]; ++x) {
          const Edge& e = edges_[x];
          if (e.from < from || e.from > to) continue;
          const double at = (e.from_head ? head_[e.from] : end_[e.from]) + extra_[e.handoff];
          double& bound = e.to_end ? finish_after : begin;
          bound = std::max(bound, at);
        }
      }
      head_[k] = begin + steps_in_order_[k].cost.fixed_s;
      end_[k] = std::max(head_[k] + steps_.work_seconds(steps_in_order_[k], tile), finish_after);
    }
    periods[t] = std::max(end_[to], 0.0);
  }
  return periods;
}

// One walk over the graph serves up to kFirstBatch sizes at once (per step the sizes' times side by
// side): the walk, not the arithmetic, is what a pass costs. Each size's numbers are computed exactly
// as a walk of its own would.
std::vector<FloorGraph::FirstIteration> FloorGraph::first_iterations(const std::vector<double>& tiles) {
  constexpr std::size_t kFirstBatch = 8;  // memory: 2 x 8 doubles per step
  std::vector<FirstIteration> out(tiles.size());
  for (std::size_t from = 0; from < tiles.size(); from += kFirstBatch) {
    const std::size_t k = std::min(kFirstBatch, tiles.size() - from);
    run_first_iteration_batch(&tiles[from], k, &out[from]);
  }
  return out;
}

void FloorGraph::run_first_iteration_batch(const double* tiles, std::size_t k, FirstIteration* out) {
  head_.assign(steps_in_order_.size() * k, 0.0);
  end_.assign(steps_in_order_.size() * k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    out[j].longest = 0.0;
    out[j].tb_start.assign(tbs_, 0.0);
    out[j].tb_first_flow.assign(tbs_, 0.0);
  }
  double begin[8], finish_after[8];
  for (std::size_t i = 0; i < steps_in_order_.size(); ++i) {
    std::fill(begin, begin + k, 0.0);
    std::fill(finish_after, finish_after + k, 0.0);
    for (Index x = edge_first_[i]; x < edge_first_[i + 1]; ++x) {
      const Edge& e = edges_[x];
      const double* from = (e.from_head ? head_.data() : end_.data()) + std::size_t{e.from} * k;
      double* bound = e.to_end ? finish_after : begin;
      const double extra = extra_[e.handoff];
      for (std::size_t j = 0; j < k; ++j) bound[j] = std::max(bound[j], from[j] + extra);
    }
    const FloorStep& entry = steps_in_order_[i];
    if (entry.step == 0)
      for (std::size_t j = 0; j < k; ++j) out[j].tb_start[tb_in_order_[i]] = begin[j];
    double* head = head_.data() + i * k;
    double* end = end_.data() + i * k;
    for (std::size_t j = 0; j < k; ++j) {
      head[j] = begin[j] + entry.cost.fixed_s;
      end[j] = std::max(head[j] + steps_.work_seconds(entry, tiles[j]), finish_after[j]);
      out[j].longest = std::max(out[j].longest, end[j]);
    }
    if (entry.step == steps_.first_send(tb_in_order_[i]))
      for (std::size_t j = 0; j < k; ++j) out[j].tb_first_flow[tb_in_order_[i]] = head[j];
  }
}

}  // namespace ccforge::sim
