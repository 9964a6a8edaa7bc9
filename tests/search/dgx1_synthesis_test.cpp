// The bar for synthesis: on DGX-1 V100 (hybrid cube-mesh, no switch) the tree-packing
// allgather must beat the best ring candidate at 64 MB and above, as simulated.
#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "best_candidate.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

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
