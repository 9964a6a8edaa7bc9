// The direct GPU-GPU link graph of a topology, the input of ring discovery and tree packing.
#include <map>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

CapacityMatrix direct_link_capacity(const topo::Topology& topo) {
  const int p = topo.num_gpus();
  std::map<std::uint32_t, int> rank_of_vertex;
  for (int r = 0; r < p; ++r) rank_of_vertex[topo.gpu(r).vertex.v] = r;
  CapacityMatrix cap(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(p), 0.0));
  for (const topo::Link& link : topo.links()) {
    auto src = rank_of_vertex.find(link.src.v), dst = rank_of_vertex.find(link.dst.v);
    if (src == rank_of_vertex.end() || dst == rank_of_vertex.end()) continue;
    cap[static_cast<std::size_t>(src->second)][static_cast<std::size_t>(dst->second)] += link.bandwidth.bytes_per_s;
  }
  return cap;
}

}  // namespace ccforge::search
