// Folding symmetric copies of one pattern into one, exactly: NVLS-tree heads, or the distinct rings of
// a multi-node ring, which are images of one another under rotating the local GPUs and the rails
// (every GPU with its own PCIe switch and NIC, as on ND H100 v5). Copies with the same alphas and
// dependencies get the same rates at every instant, because the max-min allocation is unique and thus
// invariant under the symmetry. Then one copy can stand for all: each class of links that the symmetry
// maps onto one another becomes one representative link, and a representative flow loads it as many
// times as all copies of that flow load any one link of the class. Whether the symmetry holds is
// checked on the paths themselves, never assumed; callers check alphas and dependencies.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::sim::nccl {

// paths[type][copy]: the links of one flow type (e.g. "node 3's up send") as copy `copy` runs it,
// listed in corresponding order (the k-th link of copy c is the image of copy 0's k-th link).
// Ids past the topology's links are the caller's resources (a GPU's protocol issue rate), of capacity
// extra[id - links().size()].
// Returns per type the representative links (a link repeated m times is loaded m times), or nullopt
// when the copies are not exact images: corresponding links of different bandwidth or kind, or a link
// loaded unequally within its class.
std::optional<std::vector<std::vector<std::uint32_t>>> fold_copies(
    const topo::Topology& topo, const std::vector<std::vector<std::vector<std::uint32_t>>>& paths,
    const std::vector<double>& extra = {});

}  // namespace ccforge::sim::nccl
