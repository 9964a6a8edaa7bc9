// Tree packing without its max-flow optimum, for synthesis (tree_sets.cpp), which only compares
// packings with each other and with a ring: the optimum's binary search cost more than the packing.
#pragma once

#include <optional>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// pack_trees() with optimal_rate left at 0: the trees and the rate they achieve.
std::optional<TreePacking> grow_packing(const PackingGraph& graph, int trees_per_root);

}  // namespace ccforge::search
