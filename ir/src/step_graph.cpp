#include "ccforge/ir/step_graph.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace ccforge::ir {

StepGraph::StepGraph(const Algorithm& algo) : algo_(&algo) {
  tb_base_.resize(algo.gpus.size());
  for (const GpuProgram& gpu : algo.gpus)
    for (const ThreadBlock& tb : gpu.tbs) {
      tb_base_[static_cast<std::size_t>(gpu.rank)].push_back(size());
      for (std::size_t s = 0; s < tb.steps.size(); ++s) refs_.push_back({gpu.rank, tb.id, static_cast<int>(s)});
    }
  dependee_.assign(refs_.size(), -1);
  matched_send_.assign(refs_.size(), -1);
  add_edges(algo);
  sort_topologically();
}

const Step& StepGraph::step(int node) const {
  const StepRef& r = ref(node);
  return algo_->gpus[static_cast<std::size_t>(r.rank)].tbs[static_cast<std::size_t>(r.tb)].steps[static_cast<std::size_t>(r.step)];
}

std::span<const int> StepGraph::preds(int node) const {
  const auto n = static_cast<std::size_t>(node);
  return {pred_list_.data() + pred_start_[n], static_cast<std::size_t>(pred_start_[n + 1] - pred_start_[n])};
}

std::span<const int> StepGraph::succs(int node) const {
  const auto n = static_cast<std::size_t>(node);
  return {succ_list_.data() + succ_start_[n], static_cast<std::size_t>(succ_start_[n + 1] - succ_start_[n])};
}

void StepGraph::add_edges(const Algorithm& algo) {
  std::vector<std::pair<int, int>> edges;  // (from, to)
  std::map<std::tuple<int, int, int>, Connection> conns;  // by (src rank, dst rank, channel)
  const auto connection = [&](int src, int dst, int channel) -> Connection& {
    return conns.try_emplace({src, dst, channel}, Connection{src, dst, channel, {}, {}}).first->second;
  };
  for (const GpuProgram& gpu : algo.gpus)
    for (const ThreadBlock& tb : gpu.tbs)
      for (std::size_t s = 0; s < tb.steps.size(); ++s) {
        const Step& st = tb.steps[s];
        const int here = node(gpu.rank, tb.id, static_cast<int>(s));
        if (s > 0) edges.emplace_back(here - 1, here);
        if (st.dep_tb >= 0) {
          const bool exists = st.dep_tb < static_cast<int>(gpu.tbs.size()) && st.dep_step >= 0 &&
                              st.dep_step < static_cast<int>(gpu.tbs[static_cast<std::size_t>(st.dep_tb)].steps.size());
          dependee_[static_cast<std::size_t>(here)] = exists ? node(gpu.rank, st.dep_tb, st.dep_step) : kMissing;
          if (exists) edges.emplace_back(dependee_[static_cast<std::size_t>(here)], here);
        }
        if (op_sends(st.type)) connection(gpu.rank, tb.send_peer, tb.channel).sends.push_back(here);
        if (op_receives(st.type)) connection(tb.recv_peer, gpu.rank, tb.channel).recvs.push_back(here);
      }
  for (auto& [key, conn] : conns) {
    for (std::size_t k = 0; k < std::min(conn.sends.size(), conn.recvs.size()); ++k) {
      edges.emplace_back(conn.sends[k], conn.recvs[k]);
      matched_send_[static_cast<std::size_t>(conn.recvs[k])] = conn.sends[k];
    }
    connections_.push_back(std::move(conn));
  }
  build_csr(edges);
}

void StepGraph::build_csr(const std::vector<std::pair<int, int>>& edges) {
  const std::size_t n = refs_.size();
  pred_start_.assign(n + 1, 0);
  succ_start_.assign(n + 1, 0);
  for (const auto& [from, to] : edges) {
    ++pred_start_[static_cast<std::size_t>(to) + 1];
    ++succ_start_[static_cast<std::size_t>(from) + 1];
  }
  for (std::size_t i = 0; i < n; ++i) {
    pred_start_[i + 1] += pred_start_[i];
    succ_start_[i + 1] += succ_start_[i];
  }
  pred_list_.resize(edges.size());
  succ_list_.resize(edges.size());
  std::vector<int> pred_fill(pred_start_.begin(), pred_start_.end() - 1);
  std::vector<int> succ_fill(succ_start_.begin(), succ_start_.end() - 1);
  for (const auto& [from, to] : edges) {
    pred_list_[static_cast<std::size_t>(pred_fill[static_cast<std::size_t>(to)]++)] = from;
    succ_list_[static_cast<std::size_t>(succ_fill[static_cast<std::size_t>(from)]++)] = to;
  }
}

void StepGraph::sort_topologically() {
  std::vector<int> indegree(refs_.size());
  std::deque<int> ready;
  for (int v = 0; v < size(); ++v) {
    indegree[static_cast<std::size_t>(v)] = static_cast<int>(preds(v).size());
    if (indegree[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  }
  topo_.reserve(refs_.size());
  while (!ready.empty()) {
    const int v = ready.front();
    ready.pop_front();
    topo_.push_back(v);
    for (int w : succs(v))
      if (--indegree[static_cast<std::size_t>(w)] == 0) ready.push_back(w);
  }
}

std::vector<int> StepGraph::find_cycle() const {
  std::vector<bool> sorted(refs_.size(), false);
  for (int v : topo_) sorted[static_cast<std::size_t>(v)] = true;
  const auto first = std::find(sorted.begin(), sorted.end(), false);
  if (first == sorted.end()) return {};
  // Every unsorted node has an unsorted predecessor, so walking back must revisit a node.
  std::vector<int> seen_at(refs_.size(), -1);
  std::vector<int> walk;
  int v = static_cast<int>(first - sorted.begin());
  while (seen_at[static_cast<std::size_t>(v)] < 0) {
    seen_at[static_cast<std::size_t>(v)] = static_cast<int>(walk.size());
    walk.push_back(v);
    for (int p : preds(v))
      if (!sorted[static_cast<std::size_t>(p)]) {
        v = p;
        break;
      }
  }
  std::vector<int> cycle(walk.begin() + seen_at[static_cast<std::size_t>(v)], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // walked against the edges; report in wait order
  return cycle;
}

}  // namespace ccforge::ir
