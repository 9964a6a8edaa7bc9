// Twin links (crossed by the same paths equally often): which one stands for which, and that a flow
// network folding them (FlowNetwork::set_twins) gives every flow the same rate and finish time bit for
// bit as one that keeps every link, settle after settle.
#include "twin_links.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "flow_network.hpp"

namespace ccforge::sim {
namespace {

TEST(TwinLinks, TheLeastOfEachClassStandsForEqualAndClearlyLargerTwins) {
  const std::vector<double> capacity = {2e9, 3e9, 2e9, 2e9 * (1 + 1e-9), 1e9, 5e9, 5e9, 4e9};
  // 0-3 are twins (each path crosses them alike); 4 is on one path only; 5 and 6 are crossed as often
  // by the same paths but 5 twice by one of them; 7 is crossed twice by every path that crosses it.
  const std::vector<std::vector<std::uint32_t>> paths = {{0, 1, 2, 3, 4}, {3, 2, 1, 0}, {5, 5, 6, 7, 7}, {6, 5, 7, 7}};
  // 1 (50 % larger) and 2 (equal) follow 0; 3 lies within kTwinMargin above 0 and stays itself.
  EXPECT_EQ(twin_standing_for(paths, capacity), (std::vector<std::uint32_t>{0, 0, 0, 3, 4, 5, 6, 7}));
}

// A network and, per flow, the generation and finish time of its last prediction.
struct Recorded {
  std::vector<std::uint32_t> generation;
  std::vector<SimTime> finish;
  FlowNetwork network;
  Recorded(const std::vector<double>& capacity, std::size_t flows)
      : generation(flows, 0), finish(flows), network(capacity, flows, [this](std::uint32_t f, SimTime at, std::uint32_t g) {
          generation[f] = g;
          finish[f] = at;
        }) {}
};

// Random flows (some capped, some weighted) over `paths`; flows finish at their predicted times, as the
// engine runs them, so rates, remaining bytes and finish times all feed back.
void expect_identical_with_twins(const std::vector<double>& capacity, const std::vector<std::vector<std::uint32_t>>& paths,
                                 unsigned seed) {
  constexpr std::size_t kFlows = 96;
  std::mt19937 rng(seed);
  Recorded all(capacity, kFlows), folded(capacity, kFlows);
  folded.network.set_twins(twin_standing_for(paths, capacity));
  std::vector<bool> active(kFlows, false);
  SimTime now{0};
  int compared = 0;
  for (int step = 0; step < 400; ++step) {
    // Start a few flows now, then move to the earliest predicted finish and end every flow due then.
    for (int k = std::uniform_int_distribution<int>(0, 3)(rng); k > 0; --k) {
      const std::uint32_t f = std::uniform_int_distribution<std::uint32_t>(0, kFlows - 1)(rng);
      if (active[f]) continue;
      const auto& path = paths[std::uniform_int_distribution<std::size_t>(0, paths.size() - 1)(rng)];
      const double cap = rng() % 2 == 0 ? capacity[path.front()] * std::uniform_real_distribution<double>(0.05, 0.6)(rng) : kUnbounded;
      const double weight = rng() % 4 == 0 ? 2.0 : 1.0;
      const double bytes = 1e6 * static_cast<double>(1 + rng() % 64);
      for (Recorded* r : {&all, &folded}) r->network.start(f, path, bytes, cap, weight, now);
      active[f] = true;
    }
    all.network.settle(now);
    folded.network.settle(now);
    SimTime next = SimTime::max();
    for (std::uint32_t f = 0; f < kFlows; ++f) {
      if (!active[f]) continue;
      ASSERT_EQ(all.network.state(f).rate, folded.network.state(f).rate) << "flow " << f << " at step " << step;
      ASSERT_EQ(all.finish[f], folded.finish[f]) << "flow " << f << " at step " << step;
      ++compared;
      if (all.network.state(f).rate > 0.0) next = std::min(next, all.finish[f]);
    }
    if (next == SimTime::max()) continue;
    now = next;
    for (std::uint32_t f = 0; f < kFlows; ++f) {
      if (!active[f] || all.finish[f] != now) continue;
      ASSERT_TRUE(all.network.finish(f, all.generation[f]));
      ASSERT_TRUE(folded.network.finish(f, folded.generation[f]));
      active[f] = false;
    }
  }
  EXPECT_GT(compared, 2000);
}

// Hops between 12 ports, each hop crossing the sender's egress, a larger twin and an equal twin behind
// it (an NVLink port, the NIC behind it, a switch port), and on some paths the receiver's ingress twins.
TEST(TwinLinks, FoldedNetworkGivesEveryFlowTheSameRatesAndFinishTimes) {
  constexpr std::uint32_t kPorts = 12;
  std::vector<double> capacity;
  for (std::uint32_t p = 0; p < kPorts; ++p) {
    const double c = 1e9 * (1 + p % 4);
    for (double scale : {1.0, 1.3125, 1.0}) capacity.push_back(c * scale);  // egress: least, larger, equal
    for (double scale : {1.5, 1.0}) capacity.push_back(c * scale);          // ingress: larger, least
  }
  // The equal twin first: a flow's bottleneck is the first of its links that certifies it, which the
  // folded network must find in the same place.
  auto egress = [](std::uint32_t p) { return std::vector<std::uint32_t>{5 * p + 2, 5 * p, 5 * p + 1}; };
  auto ingress = [](std::uint32_t p) { return std::vector<std::uint32_t>{5 * p + 3, 5 * p + 4}; };
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::vector<std::vector<std::uint32_t>> paths;
    for (int k = 0; k < 40; ++k) {
      const auto a = static_cast<std::uint32_t>(rng() % kPorts), b = static_cast<std::uint32_t>(rng() % kPorts);
      std::vector<std::uint32_t> path = egress(a);
      if (a != b) {
        const auto in = ingress(b);
        path.insert(path.begin() + static_cast<std::ptrdiff_t>(rng() % (path.size() + 1)), in.begin(), in.end());
      }
      paths.push_back(std::move(path));
    }
    // Ports 0-5's egress is only ever crossed with its twins, so they fold; an ingress used alone
    // (a != b never drawn for it) has no path and stays out.
    expect_identical_with_twins(capacity, paths, seed);
  }
}

}  // namespace
}  // namespace ccforge::sim
