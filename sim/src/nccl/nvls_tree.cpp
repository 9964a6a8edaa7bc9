#include <fmt/core.h>

#include <algorithm>

#include "costs.hpp"
#include "copy_folding.hpp"
#include "nccl_lowering.hpp"
#include "nccl_model.hpp"
#include "send_order.hpp"
#include "trees.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {
namespace {

// NVLSTree chunk (src/enqueue.cc, NCCL_ALGO_NVLS_TREE): the version's largest (`start`: 2.18 one Simple
// step, 512 KiB; 2.21+ 128 KiB, 64 KiB from 4 nodes), halved down to 32 KiB while the call is small
// against channels x heads concurrent ops.
double nvls_tree_chunk(double bytes, int nchannels, int nheads, double start) {
  const double ops = static_cast<double>(nchannels) * nheads;
  double chunk = start;
  if (bytes < 32 * ops * chunk) chunk = std::min(chunk, 256.0 * 1024);
  if (bytes < 16 * ops * chunk) chunk = std::min(chunk, 128.0 * 1024);
  if (bytes < 4 * ops * chunk) chunk = std::min(chunk, 64.0 * 1024);
  if (bytes < 1 * ops * chunk) chunk = std::min(chunk, 32.0 * 1024);
  return chunk;
}

std::vector<int> kids(const NodeLinks& l) {
  std::vector<int> out;
  for (int c : {l.child0, l.child1}) {
    if (c >= 0) out.push_back(c);
  }
  return out;
}

struct NodeTree {
  std::vector<NodeLinks> links;   // per node
  std::vector<int> leaves_first;  // nodes, children before parents
  int root = 0;
};

NodeTree node_tree_of(int nnodes, int which) {
  NodeTree t;
  for (int n = 0; n < nnodes; ++n) {
    t.links.push_back(node_tree(nnodes, n, which));
    if (t.links.back().parent < 0) t.root = n;
  }
  t.leaves_first.push_back(t.root);
  for (std::size_t k = 0; k < t.leaves_first.size(); ++k) {
    for (int c : kids(t.links[t.leaves_first[k]])) t.leaves_first.push_back(c);
  }
  std::reverse(t.leaves_first.begin(), t.leaves_first.end());
  return t;
}

// The links of one NVLS operation owned by local GPU `owner` of node `node`, listed from the owner
// round the node (so that the lists of different owners correspond under rotation). Multimem reaches
// the owner's own memory through the switch too: reduce loads every port's uplink and the owner's
// downlink, multicast the owner's uplink and every downlink (see nvls.cpp).
std::vector<std::uint32_t> nvls_op_links(const topo::Topology& topo, int node, int owner, bool reduce) {
  const int g = topo.gpus_per_node();
  const int o = node * g + owner;
  const int next = node * g + (owner + 1) % g;
  std::vector<std::uint32_t> links{reduce ? topo.route(o, next).links.front().v : topo.route(next, o).links.back().v};
  for (int j = 1; j < g; ++j) {
    const int r = node * g + (owner + j) % g;
    for (LinkId l : reduce ? topo.route(r, o).links : topo.route(o, r).links) {
      // Each port once per operation (the owner's is on every route).
      if (std::find(links.begin(), links.end(), l.v) == links.end()) links.push_back(l.v);
    }
  }
  return links;
}

std::vector<std::uint32_t> route_links(const topo::Topology& topo, int src, int dst) {
  std::vector<std::uint32_t> links;
  for (LinkId l : topo.route(src, dst).links) links.push_back(l.v);
  return links;
}

// One flow of the pattern: which links (per head), with what alpha.
struct FlowType {
  std::vector<std::vector<std::uint32_t>> links_by_head;
  SimTime delay;
  bool network = false;
  bool uniform = true;  // same alpha and path class for every head
  int from = -1, to = -1;  // a send's nodes (-1: an NVLS operation)
};

}  // namespace

void lower_nvls_tree(Lowering& low, const NcclCall& call, bool fold) {
  const topo::Topology& topo = low.topo();
  const ProtocolCosts costs = protocol_costs(low.params(), ir::Protocol::Simple, low.topo());
  const double efficiency = low.params().of(low.arch()).nvls_efficiency.value();
  const int g = topo.gpus_per_node();
  const int nnodes = topo.num_nodes();
  const std::vector<int> heads = nvls_connected_heads(topo);
  // An NVLS reduce or multicast waits one NVLS step handoff, as in lower_nvls.
  const SimTime nvls_delay = nvls_step_handoff(topo, 0, g);
  const TuningConstants* tables = tuning_tables_for(low.params().nccl_version);
  const double start = nnodes >= 4 ? tables->nvls_tree_chunk_4_nodes : tables->nvls_tree_chunk;
  const double chunk_size = nvls_tree_chunk(call.bytes, call.nchannels, static_cast<int>(heads.size()), start);
  const std::uint32_t reduce_label = low.graph().add_label("nvls ld_reduce");
  const std::uint32_t up_label = low.graph().add_label("nvlstree up");
  const std::uint32_t down_label = low.graph().add_label("nvlstree down");
  const std::uint32_t mcast_label = low.graph().add_label("nvls multicast");
  const double share = call.bytes / call.nchannels / static_cast<double>(heads.size());
  // Channel c follows tree c % 2; each half of the channels is simulated once, weighted.
  for (int which = 0; which < std::min(2, call.nchannels); ++which) {
    const double weight = (call.nchannels - which + 1) / 2;
    const NodeTree tree = node_tree_of(nnodes, which);
    // Flow types, indexed: per node reduce, multicast, up; per (node, child k) down.
    std::vector<FlowType> types;
    auto nvls_type = [&](int n, bool reduce) {
      FlowType f;
      for (int h : heads) f.links_by_head.push_back(nvls_op_links(topo, n, h, reduce));
      f.delay = nvls_delay;
      types.push_back(std::move(f));
      return static_cast<int>(types.size()) - 1;
    };
    auto send_type = [&](int n, int m) {
      FlowType f;
      const topo::Route& r0 = topo.route(n * g + heads[0], m * g + heads[0]);
      for (int h : heads) {
        const topo::Route& r = topo.route(n * g + h, m * g + h);
        f.uniform = f.uniform && r.latency == r0.latency && r.path_class == r0.path_class;
        f.links_by_head.push_back(route_links(topo, n * g + h, m * g + h));
      }
      f.network = r0.path_class == topo::PathClass::Net;
      f.delay = transfer_alpha(costs, r0);
      f.from = n;
      f.to = m;
      types.push_back(std::move(f));
      return static_cast<int>(types.size()) - 1;
    };
    std::vector<int> reduce_t(nnodes), mcast_t(nnodes), up_t(nnodes, -1);
    std::vector<std::vector<int>> down_t(nnodes);
    for (int n = 0; n < nnodes; ++n) {
      reduce_t[n] = nvls_type(n, true);
      mcast_t[n] = nvls_type(n, false);
      if (tree.links[n].parent >= 0) up_t[n] = send_type(n, tree.links[n].parent);
      for (int c : kids(tree.links[n])) down_t[n].push_back(send_type(n, c));
    }
    // One head stands for all when the heads are exact images (copy_folding.hpp); else every head runs.
    std::vector<std::vector<std::uint32_t>> by_type;
    for (const FlowType& f : types) by_type.push_back(f.links_by_head[0]);
    std::vector<std::vector<std::vector<std::uint32_t>>> all;
    bool uniform = costs.gpu_bytes_per_s == 0.0;  // a per-GPU issue cap is not a link the fold can see
    for (const FlowType& f : types) {
      all.push_back(f.links_by_head);
      uniform = uniform && f.uniform;
    }
    const auto folded = uniform && fold ? fold_copies(topo, all) : std::nullopt;
    const std::size_t runs = folded ? 1 : heads.size();
    for (std::size_t hi = 0; hi < runs; ++hi) {
      std::vector<PathId> path(types.size());
      for (std::size_t t = 0; t < types.size(); ++t) {
        path[t] = folded ? low.graph().add_path((*folded)[t]) : low.add_path(types[t].links_by_head[hi]);
      }
      const int h = heads[hi];
      auto head = [&](int node) { return node * g + h; };
      std::vector<TaskId> last_reduce(nnodes), last_mcast(nnodes), up(nnodes), down(nnodes);
      std::vector<SendOrder> up_order(nnodes);
      std::vector<std::vector<SendOrder>> down_order(nnodes, std::vector<SendOrder>(2));
      std::vector<int> track(nnodes);
      for (int n = 0; n < nnodes; ++n) {
        track[n] = low.track(fmt::format("rank {} tree {} x{}{} (nvlstree)", head(n), which, weight,
                                         folded ? fmt::format(" for {} heads", heads.size()) : ""));
      }
      // `wire`: the op's wire bytes; a send's cap is its connection's (Lowering::send_rate_cap).
      auto op = [&](int t, double wire, int n, std::uint32_t label) {
        const FlowType& f = types[t];
        const double cap = f.from < 0 ? costs.tb_bytes_per_s : low.send_rate_cap(head(f.from), head(f.to), wire, costs);
        return low.add_fabric_op(path[t], wire, cap, f.delay, track[n], label, weight);
      };
      bool started = false;
      double remaining = share;
      while (remaining > 0.0) {
        const double chunk = std::min(chunk_size, remaining);
        remaining -= chunk;
        const double nvls_wire = chunk / efficiency;
        const double send_wire = chunk / costs.wire_efficiency;
        std::vector<TaskId> reduced(nnodes);
        for (int n : tree.leaves_first) {
          reduced[n] = op(reduce_t[n], nvls_wire, n, reduce_label);
          if (started) low.graph().depend(last_reduce[n], reduced[n]);
          last_reduce[n] = reduced[n];
          if (up_t[n] < 0) continue;
          const TaskId t = op(up_t[n], send_wire, n, up_label);
          low.graph().depend(reduced[n], t);
          for (int c : kids(tree.links[n])) low.graph().depend(up[c], t);
          up_order[n].chain(low.graph(), t, types[up_t[n]].network);
          up[n] = t;
        }
        for (auto it = tree.leaves_first.rbegin(); it != tree.leaves_first.rend(); ++it) {
          const int n = *it;
          // Node n's result is ready when the root has reduced everything, elsewhere when the parent's
          // send has landed.
          std::vector<TaskId> ready;
          if (tree.links[n].parent < 0) {
            ready.push_back(reduced[n]);
            for (int c : kids(tree.links[n])) ready.push_back(up[c]);
          } else {
            ready.push_back(down[n]);
          }
          const TaskId m = op(mcast_t[n], nvls_wire, n, mcast_label);
          for (TaskId r : ready) low.graph().depend(r, m);
          if (started) low.graph().depend(last_mcast[n], m);
          last_mcast[n] = m;
          const std::vector<int> children = kids(tree.links[n]);
          for (std::size_t k = 0; k < children.size(); ++k) {
            const int t_index = down_t[n][k];
            const TaskId t = op(t_index, send_wire, n, down_label);
            for (TaskId r : ready) low.graph().depend(r, t);
            down_order[n][k].chain(low.graph(), t, types[t_index].network);
            down[children[k]] = t;
          }
        }
        started = true;
      }
    }
  }
}

}  // namespace ccforge::sim::nccl
