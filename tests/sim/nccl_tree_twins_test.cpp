// NCCL's tree across 16 nodes, folded as NCCL's choice runs it (both trees, all rotations in one
// channel): the engine folding twin links (twin_links.hpp) takes it to the same picosecond, with the
// same events, as a traced run, which keeps every link.
#include <gtest/gtest.h>

#include <string>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "lowering.hpp"
#include "nccl_lowering.hpp"
#include "source_dir.hpp"
#include "twin_links.hpp"

namespace ccforge::sim {
namespace {

TEST(NcclTreeTwins, SixteenNodeTreeTakesTheSameTimeWithTwinLinksFolded) {
  const topo::Topology topo = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x16.xml");
  const SimParams params;
  for (auto proto : {ir::Protocol::LL128, ir::Protocol::Simple}) {
    const nccl::NcclCall call{ir::Collective::AllReduce, 256.0 * (1 << 20), proto, 16};
    Trace trace;
    Lowering traced(topo, params.constants, &trace), plain(topo, params.constants, nullptr);
    nccl::lower_tree(traced, call, true);
    nccl::lower_tree(plain, call, true);
    // The fold is exercised: some link of the tree's routes has a twin standing for it.
    const std::vector<std::uint32_t> twin = twin_standing_for(plain.graph().paths(), link_capacities(topo, params.constants));
    std::size_t folded = 0;
    for (std::uint32_t l = 0; l < twin.size(); ++l) folded += twin[l] != l;
    EXPECT_GT(folded, 0u);
    const EngineStats all = traced.run(), twins = plain.run();
    EXPECT_EQ(all.makespan, twins.makespan) << ir::to_string(proto);
    EXPECT_EQ(all.events, twins.events);
    EXPECT_GT(all.events, 10000u);
  }
}

}  // namespace
}  // namespace ccforge::sim
