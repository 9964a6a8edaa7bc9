// The bar for synthesis: on DGX-1 V100 (hybrid cube-mesh, no switch) the tree-packing
// allgather must beat the best ring candidate at 64 MB and above, as simulated.
#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {
namespace {

std::optional<SimTime> best_of(const topo::Topology& t, const CandidateSet& set, std::string_view generator, ByteCount bytes,
                               std::string& name) {
  std::optional<SimTime> best;
  const sim::SimParams params;
  const sim::CallSpec call{bytes, *sim::data_type_from_string("half")};
  for (const Candidate& c : set.accepted) {
    if (c.generator != generator) continue;
    try {
      const SimTime time = sim::simulate(t, c.algorithm, call, params).time;
      if (!best || time < *best) {
        best = time;
        name = c.name;
      }
    } catch (const DiagError&) {
      // the size does not split into this candidate's chunks (e.g. 6 rings x 8 segments)
    }
  }
  return best;
}

TEST(SearchDgx1Synthesis, TreePackingAllgatherBeatsTheBestRingFrom64MB) {
  const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/dgx1-v100.xml");
  const CandidateSet set = enumerate_candidates(t, ir::Collective::AllGather);
  for (ByteCount bytes : {ByteCount{64} << 20, ByteCount{128} << 20}) {
    std::string ring_name, tree_name;
    const auto ring = best_of(t, set, "ring", bytes, ring_name), tree = best_of(t, set, "treepack", bytes, tree_name);
    ASSERT_TRUE(ring && tree);
    EXPECT_LT(*tree, *ring) << bytes << " B: " << tree_name << " " << tree->us() << " us vs " << ring_name << " " << ring->us() << " us";
  }
}

}  // namespace
}  // namespace ccforge::search
