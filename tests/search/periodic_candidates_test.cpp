// The closed form for repeated tile iterations against the full simulation for every generated NDv5
// candidate of all 8 collectives (25 iterations, a partial last tile). Labelled slow: ~300 full
// simulations, too many for the sanitized suite; periodic_test.cpp covers the same code there.
#include <cstdio>

#include <gtest/gtest.h>

#include "ccforge/search/search.hpp"
#include "periodic_agreement.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

using periodic_testing::Agreement;
using periodic_testing::expect_agreement;
using periodic_testing::size_with_partial_tile;

const std::string kRoot = CCFORGE_SOURCE_DIR;

TEST(Periodic, GeneratedCandidatesAgreeWithFullSimulation) {
  const topo::Topology ndv5 = topo::load_topology(kRoot + "/data/topologies/ndv5.xml");
  for (const ir::Collective coll : {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::ReduceScatter,
                                    ir::Collective::AllToAll, ir::Collective::Broadcast, ir::Collective::Reduce,
                                    ir::Collective::Gather, ir::Collective::Scatter}) {
    Agreement tally;
    for (const search::Candidate& c : search::enumerate_candidates(ndv5, coll).accepted) {
      expect_agreement(ndv5, c.algorithm, size_with_partial_tile(c.algorithm, 24), tally);
    }
    EXPECT_GT(tally.compared, 0) << ir::to_string(coll);
    std::printf("%-14s %3d candidates, %3d extrapolated\n", ir::to_string(coll), tally.compared, tally.extrapolated);
  }
}

}  // namespace
}  // namespace ccforge::sim
