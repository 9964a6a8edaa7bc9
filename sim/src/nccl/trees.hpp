// NCCL's tree shapes (src/graph/trees.cc ncclGetBtree/ncclGetDtree, src/graph/connect.cc
// connectTrees), rebuilt from their documented rules: a binary tree over nodes that alternates leaves
// and inner nodes, its complement (mirrored for an even node count, shifted by one for an odd one),
// and inside each node a chain of its GPUs.
#pragma once

#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::sim::nccl {

// One node's links in a tree over `nnodes` nodes; -1 where there is none.
struct NodeLinks {
  int parent = -1;
  int child0 = -1;      // the smaller child
  int child1 = -1;
  bool first_child = false;  // this node is its parent's child0
};

// Tree 0 (the binary tree rooted at node 0) or tree 1 (its complement) at `node`.
NodeLinks node_tree(int nnodes, int node, int which);

// A tree over all GPUs: per rank its parent (-1 at the root) and children, and the ranks ordered so
// that every child comes before its parent.
struct GpuTree {
  std::vector<int> parent;
  std::vector<std::vector<int>> children;
  std::vector<int> leaves_first;
  int root = 0;
};

// NCCL's tree channel: tree `which` over nodes; inside node n the chain intra[0] -> intra[1] -> ... with
// intra[i] = local GPU `order`[i] (a permutation of the local indices). intra[0] links to the parent node
// and to child1, intra[1] to child0 (NCCL_TOPO_PATTERN_BALANCED_TREE; intra[0] for both when a node has
// one GPU).
GpuTree gpu_tree(const topo::Topology& topo, int which, const std::vector<int>& order);

}  // namespace ccforge::sim::nccl
