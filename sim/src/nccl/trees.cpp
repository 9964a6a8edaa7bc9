#include "trees.hpp"

#include <algorithm>

namespace ccforge::sim::nccl {
namespace {

// The binary tree rooted at 0: a node's lowest set bit b says its level; its parent sets bit 2b and
// clears b (or only clears b when that runs past the last node); its children are node -/+ b/2, the
// right one shrunk until it exists.
NodeLinks btree(int n, int node) {
  NodeLinks out;
  int bit = 1;
  while (bit < n && (bit & node) == 0) bit <<= 1;
  if (node == 0) {
    if (n > 1) out.child1 = bit >> 1;
    return out;
  }
  int up = (node ^ bit) | (bit << 1);
  if (up >= n) up = node ^ bit;
  out.parent = up;
  out.first_child = node < up;
  int low = bit >> 1;
  if (low == 0) return out;
  out.child0 = node - low;
  int right = node + low;
  while (right >= n) {
    low >>= 1;
    right = low == 0 ? -1 : node + low;
  }
  out.child1 = right;
  return out;
}

int map_node(int v, int n, bool mirror) {
  if (v < 0) return -1;
  return mirror ? n - 1 - v : (v + 1) % n;
}

}  // namespace

NodeLinks node_tree(int nnodes, int node, int which) {
  if (which == 0) return btree(nnodes, node);
  const bool mirror = nnodes % 2 == 0;
  NodeLinks t = btree(nnodes, mirror ? nnodes - 1 - node : (node - 1 + nnodes) % nnodes);
  t.parent = map_node(t.parent, nnodes, mirror);
  t.child0 = map_node(t.child0, nnodes, mirror);
  t.child1 = map_node(t.child1, nnodes, mirror);
  return t;
}

GpuTree gpu_tree(const topo::Topology& topo, int which, const std::vector<int>& order) {
  const int g = topo.gpus_per_node();
  const int nnodes = topo.num_nodes();
  const int p = topo.num_gpus();
  auto intra = [&](int node, int i) { return node * g + order[static_cast<std::size_t>(i)]; };
  const int to_child0 = std::min(1, g - 1);
  GpuTree tree;
  tree.parent.assign(p, -1);
  tree.children.assign(p, {});
  for (int node = 0; node < nnodes; ++node) {
    for (int i = 1; i < g; ++i) tree.parent[intra(node, i)] = intra(node, i - 1);
    const NodeLinks links = node_tree(nnodes, node, which);
    if (links.parent >= 0) tree.parent[intra(node, 0)] = intra(links.parent, links.first_child ? to_child0 : 0);
    else tree.root = intra(node, 0);
  }
  for (int r = 0; r < p; ++r) {
    if (tree.parent[r] >= 0) tree.children[tree.parent[r]].push_back(r);
  }
  // Breadth-first from the root, reversed: children before parents.
  tree.leaves_first.push_back(tree.root);
  for (std::size_t k = 0; k < tree.leaves_first.size(); ++k) {
    for (int c : tree.children[tree.leaves_first[k]]) tree.leaves_first.push_back(c);
  }
  std::reverse(tree.leaves_first.begin(), tree.leaves_first.end());
  return tree;
}

}  // namespace ccforge::sim::nccl
