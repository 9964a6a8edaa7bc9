// Across nodes, what bounds one send's rate: NCCL's tree splits a non-root rank's threads between its
// reduce-up and broadcast-down halves (runTreeSplit).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "lowering.hpp"
#include "nccl_lowering.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name)).first;
  return it->second;
}

// Rate caps of the tree's sends, by label ("tree reduce", "tree broadcast"), as shares of the protocol's
// threadblock rate.
std::map<std::string, std::set<double>> tree_cap_shares(const topo::Topology& topo, ir::Protocol proto) {
  const SimParams params;
  Lowering low(topo, params.constants, nullptr);
  nccl::lower_tree(low, nccl::NcclCall{ir::Collective::AllReduce, 64.0 * 1024 * 1024, proto, 16}, false);
  const double tb = protocol_costs(params.constants, proto, topo).tb_bytes_per_s;
  std::map<std::string, std::set<double>> shares;
  for (const Task& t : low.graph().tasks()) {
    if (t.path == kNoPath) continue;
    shares[low.graph().labels()[t.label]].insert(std::round(t.rate_cap / tb * 1e4) / 1e4);
  }
  return shares;
}

// Simple: 640 threads, 384 reduce and 256 broadcast, each less a sync warp, against a ring channel's 512
// workers; the root reduces and broadcasts in one op at the full rate.
TEST(NcclNetRates, TreeSimpleSplitsItsThreadsBetweenUpAndDown) {
  const auto shares = tree_cap_shares(load("ndv5-x2.xml"), ir::Protocol::Simple);
  EXPECT_EQ(shares.at("tree reduce"), (std::set<double>{0.6875}));
  EXPECT_EQ(shares.at("tree broadcast"), (std::set<double>{0.4375, 1.0}));
}

// LL128: 14 of 20 warps reduce, 6 broadcast. LL's rate is the GPU's whole LL rate, not the threads'.
TEST(NcclNetRates, TreeLl128SplitsItsWarpsAndLlKeepsItsRate) {
  const auto ll128 = tree_cap_shares(load("ndv5-x2.xml"), ir::Protocol::LL128);
  EXPECT_EQ(ll128.at("tree reduce"), (std::set<double>{0.7}));
  EXPECT_EQ(ll128.at("tree broadcast"), (std::set<double>{0.3, 1.0}));
  const auto ll = tree_cap_shares(load("ndv5-x2.xml"), ir::Protocol::LL);
  EXPECT_EQ(ll.at("tree reduce"), (std::set<double>{1.0}));
  EXPECT_EQ(ll.at("tree broadcast"), (std::set<double>{1.0}));
}

}  // namespace
}  // namespace ccforge::sim
