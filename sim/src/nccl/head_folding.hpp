// Folding symmetric NVLS heads into one, exactly. On a node whose heads are images of one another
// (rotate the local GPUs and the rails: every head has its own PCIe switch and NIC, as on ND H100 v5),
// every head's flows get the same rates at every instant, because the max-min allocation is unique and
// thus invariant under the symmetry. Then one head can stand for all: each class of links that the
// symmetry maps onto one another becomes one representative link, and a representative flow loads it
// as many times as all heads' copies of that flow load any one link of the class. Whether the
// symmetry holds is checked on the paths themselves, never assumed.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ccforge/topology/topology.hpp"

namespace ccforge::sim::nccl {

// paths[type][head]: the links of one flow type (e.g. "node 3's up send") as head `head` runs it,
// listed in corresponding order (the k-th link of head h's copy is the image of head 0's k-th link).
// Returns per type the representative links (a link repeated m times is loaded m times), or nullopt
// when the heads are not exact images: corresponding links of different bandwidth or kind, or a link
// loaded unequally within its class.
std::optional<std::vector<std::vector<std::uint32_t>>> fold_heads(
    const topo::Topology& topo, const std::vector<std::vector<std::vector<std::uint32_t>>>& paths);

}  // namespace ccforge::sim::nccl
