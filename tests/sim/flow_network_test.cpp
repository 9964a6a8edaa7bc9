// The selective re-solve (only the component around the links touched since the last settle, as the
// engine runs it) against the full re-solve oracle (every active flow at every settle): the same rate
// for every flow after every settle, on random flows over random links and over ndv5's real routes.
#include "flow_network.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

// One network and the generation of each flow's pending finish, which finish() must quote.
struct Tracked {
  std::vector<std::uint32_t> generation;
  FlowNetwork network;
  Tracked(const std::vector<double>& capacity, std::size_t flows, FlowNetwork::Resolve resolve)
      : generation(flows, 0),
        network(capacity, flows, [this](std::uint32_t f, SimTime, std::uint32_t g) { generation[f] = g; }, resolve) {}
};

// Starts and finishes random flows (paths drawn from `paths`, some rate-capped, some standing for
// several identical flows), settling both networks after each batch, and compares every flow's rate.
// `all_capped`: every flow has a rate cap of 5-50 % of its first link, so that links whose flows' caps
// fit them drop out of the problem (FlowNetwork's binding links) and join again as flows arrive.
// `max_changes`: starts and finishes per batch, at most.
void expect_same_rates(const std::vector<double>& capacity, const std::vector<std::vector<std::uint32_t>>& paths,
                       unsigned seed, bool all_capped = false, int max_changes = 4) {
  constexpr std::size_t kFlows = 64;
  std::mt19937 rng(seed);
  Tracked selective(capacity, kFlows, FlowNetwork::Resolve::Selective);
  Tracked full(capacity, kFlows, FlowNetwork::Resolve::Full);
  std::vector<bool> active(kFlows, false);
  SimTime now{0};
  int compared = 0;
  for (int batch = 0; batch < 200; ++batch) {
    for (int k = std::uniform_int_distribution<int>(1, max_changes)(rng); k > 0; --k) {
      const std::uint32_t f = std::uniform_int_distribution<std::uint32_t>(0, kFlows - 1)(rng);
      if (active[f]) {
        ASSERT_TRUE(selective.network.finish(f, selective.generation[f]));
        ASSERT_TRUE(full.network.finish(f, full.generation[f]));
        active[f] = false;
        continue;
      }
      const auto& path = paths[std::uniform_int_distribution<std::size_t>(0, paths.size() - 1)(rng)];
      double cap = rng() % 3 == 0 ? capacity[path.front()] * 0.1 : kUnbounded;
      if (all_capped) cap = capacity[path.front()] * std::uniform_real_distribution<double>(0.05, 0.5)(rng);
      const double weight = rng() % 4 == 0 ? 3.0 : 1.0;
      for (Tracked* t : {&selective, &full}) {
        t->network.start(f, path, 1e9, cap, weight, now);
        ++t->generation[f];
      }
      active[f] = true;
    }
    selective.network.settle(now);
    full.network.settle(now);
    for (std::uint32_t f = 0; f < kFlows; ++f) {
      if (!active[f]) continue;
      const double a = selective.network.state(f).rate, b = full.network.state(f).rate;
      ASSERT_GT(b, 0.0);
      EXPECT_NEAR(a, b, 1e-9 * b) << "flow " << f << " after batch " << batch;
      ++compared;
    }
    now += SimTime::from_us(1.0);
  }
  EXPECT_GT(compared, 1000);
}

// 24 links of mixed capacity, 48 paths of 1-3 distinct links: many small components that merge and split.
struct RandomLinks {
  std::vector<double> capacity;
  std::vector<std::vector<std::uint32_t>> paths;
};
RandomLinks random_links(unsigned seed) {
  std::mt19937 rng(seed);
  RandomLinks r;
  for (int l = 0; l < 24; ++l) r.capacity.push_back(1e9 * (1 + rng() % 8));
  r.paths.resize(48);
  for (auto& p : r.paths) {
    for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n) {
      const auto l = static_cast<std::uint32_t>(rng() % r.capacity.size());
      if (std::find(p.begin(), p.end(), l) == p.end()) p.push_back(l);
    }
  }
  return r;
}

TEST(FlowNetwork, SelectiveReSolveMatchesTheFullReSolveOnRandomFlows) {
  const RandomLinks links = random_links(7);
  for (unsigned seed : {1u, 2u, 3u}) expect_same_rates(links.capacity, links.paths, seed);
}

TEST(FlowNetwork, SelectiveReSolveMatchesTheFullReSolveWhenLinksStopBinding) {
  // As above, every flow capped: links come and go from the problem as their flows' caps outgrow them.
  const RandomLinks links = random_links(5);
  for (unsigned seed : {4u, 5u, 6u}) expect_same_rates(links.capacity, links.paths, seed, true);
}

TEST(FlowNetwork, SelectiveReSolveMatchesTheFullReSolveOnLongChains) {
  // A chain of links where flow k spans links k and k+1 (as a tree's sends share NIC ports): one
  // component end to end, so a change must be certified locally or the whole chain re-solved.
  std::vector<double> capacity;
  for (int l = 0; l < 40; ++l) capacity.push_back(1e9 * (1 + l % 3));
  std::vector<std::vector<std::uint32_t>> paths;
  for (std::uint32_t l = 0; l + 1 < capacity.size(); ++l) paths.push_back({l, l + 1});
  for (unsigned seed : {7u, 8u}) {
    expect_same_rates(capacity, paths, seed);
    expect_same_rates(capacity, paths, seed, true);
  }
}

TEST(FlowNetwork, SelectiveReSolveMatchesTheFullReSolveOneChangeAtATimeOnCrowdedLinks) {
  // 64 flows on 8 links, one start or finish per settle (a pipeline's chunks): most flows keep their
  // rate across many settles, certified by the link that certified them before while nothing on it
  // changed; links also stop and start binding under them.
  const RandomLinks links = random_links(9);
  std::vector<double> capacity(links.capacity.begin(), links.capacity.begin() + 8);
  std::vector<std::vector<std::uint32_t>> paths;
  for (std::uint32_t a = 0; a < 8; ++a)
    for (std::uint32_t b = 0; b < 8; ++b) paths.push_back(a == b ? std::vector<std::uint32_t>{a} : std::vector<std::uint32_t>{a, b});
  for (unsigned seed : {12u, 13u}) {
    expect_same_rates(capacity, paths, seed, false, 1);
    expect_same_rates(capacity, paths, seed, true, 1);
  }
}

TEST(FlowNetwork, SelectiveReSolveMatchesTheFullReSolveOnNdv5Routes) {
  const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  std::vector<std::vector<std::uint32_t>> paths;
  for (int i = 0; i < t.num_gpus(); ++i)
    for (int j = 0; j < t.num_gpus(); ++j) {
      if (i == j) continue;
      std::vector<std::uint32_t>& p = paths.emplace_back();
      for (LinkId l : t.route(i, j).links) p.push_back(l.v);
    }
  expect_same_rates(build_model(t, SimParams{}).link_capacity, paths, 11);
}

}  // namespace
}  // namespace ccforge::sim
