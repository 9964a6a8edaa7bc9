// Across nodes, what bounds one send's rate: NCCL's tree splits a non-root rank's threads between its
// reduce-up and broadcast-down halves (runTreeSplit), aws-ofi-nccl stripes an EFA message over its
// device's rails only above its minimum stripe size, and each network send is capped at the rails its
// message goes on.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "ccforge/sim/sim.hpp"
#include "ccforge/sim/transports.hpp"
#include "costs.hpp"
#include "lowering.hpp"
#include "nccl_lowering.hpp"
#include "net/transport_costs.hpp"
#include "topology_cache.hpp"

namespace ccforge::sim {
namespace {

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

// aws-ofi-nccl's threshold scheduler: up to 128 KiB one rail; then ceil(size / 128 KiB) rails, lowered to a
// divisor of p5's 4; IB drives its NIC as one device.
TEST(NcclNetRates, EfaStripesOnlyAboveItsMinimumStripeSize) {
  const topo::Topology& p5 = load("p5-x2.xml");
  EXPECT_EQ(p5.transport().nics_per_device(), 4);
  EXPECT_EQ(net::message_rails(p5, 16 * 1024), 1);
  EXPECT_EQ(net::message_rails(p5, 128 * 1024), 1);
  EXPECT_EQ(net::message_rails(p5, 128 * 1024 + 1), 2);
  EXPECT_EQ(net::message_rails(p5, 3 * 128 * 1024), 2);
  EXPECT_EQ(net::message_rails(p5, 512 * 1024), 4);
  EXPECT_EQ(net::message_rails(p5, 64.0 * 1024 * 1024), 4);
  EXPECT_EQ(net::message_rails(load("ndv5-x2.xml"), 16 * 1024), 1);
  EXPECT_EQ(net::transport_constants(topo::TransportKind::Efa).stripe_min_bytes.value, 131072.0);
}

// A network send of one rail's message is capped at one 100 Gb/s NIC's share; a striped one and every
// send over IB or NVLink only by the threadblock.
TEST(NcclNetRates, ANetworkSendIsCappedAtTheRailsItsMessageUses) {
  const SimParams params;
  const topo::Topology& p5 = load("p5-x2.xml");
  Lowering low(p5, params.constants, nullptr);
  const ProtocolCosts costs = protocol_costs(params.constants, ir::Protocol::Simple, p5);
  const std::vector<double> capacity = link_capacities(p5, params.constants);
  double nic = 0;
  for (LinkId l : p5.route(0, 8).links) {
    const topo::LinkKind kind = p5.link(l).kind;
    if (kind == topo::LinkKind::Nic || kind == topo::LinkKind::Network) nic = capacity[l.v];
  }
  ASSERT_GT(nic, 0.0);
  EXPECT_NEAR(low.send_rate_cap(0, 8, 64 * 1024, costs), nic / 4, 1e-6 * nic);
  EXPECT_NEAR(low.send_rate_cap(0, 8, 256 * 1024, costs), std::min(costs.tb_bytes_per_s, nic / 2), 1e-6 * nic);
  EXPECT_EQ(low.send_rate_cap(0, 8, 1024 * 1024, costs), costs.tb_bytes_per_s);
  EXPECT_EQ(low.send_rate_cap(0, 1, 64 * 1024, costs), costs.tb_bytes_per_s);
  Lowering ib(load("ndv5-x2.xml"), params.constants, nullptr);
  EXPECT_EQ(ib.send_rate_cap(0, 8, 64 * 1024, costs), costs.tb_bytes_per_s);
}

// The cap holds on every lowering's network sends, on folded paths too: the ring (ring.cpp) and the tree
// (tree.cpp) folded over their rotations, and the NVLS tree's head sends (nvls_tree.cpp). Their messages here
// are at most 128 KiB, so each network send is bound to one rail; NVLink sends keep the threadblock's rate.
TEST(NcclNetRates, EveryLoweringCapsItsNetworkSendsAtOneRail) {
  const SimParams params;
  const topo::Topology& p5 = load("p5-x2.xml");
  const std::vector<double> capacity = link_capacities(p5, params.constants);
  auto check = [&](const char* what, ir::Protocol proto, const std::function<void(Lowering&)>& lower) {
    Lowering low(p5, params.constants, nullptr);
    lower(low);
    const double tb = protocol_costs(params.constants, proto, p5).tb_bytes_per_s;
    std::size_t network = 0;
    for (const Task& t : low.graph().tasks()) {
      if (t.path == kNoPath) continue;
      double nic = 0;
      for (std::uint32_t l : low.graph().paths()[t.path]) {
        const topo::LinkKind kind = p5.links()[l].kind;
        if (kind == topo::LinkKind::Nic || kind == topo::LinkKind::Network) nic = capacity[l];
      }
      if (nic == 0) {
        EXPECT_LE(t.rate_cap, tb * (1 + 1e-9)) << what;
        continue;
      }
      ++network;
      EXPECT_NEAR(t.rate_cap, nic / 4, 1e-6 * nic) << what;
    }
    EXPECT_GT(network, 0u) << what;
  };
  check("ring", ir::Protocol::Simple, [](Lowering& low) {
    nccl::lower_ring(low, nccl::NcclCall{ir::Collective::AllReduce, 1024.0 * 1024, ir::Protocol::Simple, 16}, true);
  });
  check("nvlstree", ir::Protocol::Simple, [](Lowering& low) {
    nccl::lower_nvls_tree(low, nccl::NcclCall{ir::Collective::AllReduce, 4.0 * 1024 * 1024, ir::Protocol::Simple, 16}, true);
  });
  check("tree", ir::Protocol::Simple, [](Lowering& low) {
    nccl::lower_tree(low, nccl::NcclCall{ir::Collective::AllReduce, 1024.0 * 1024, ir::Protocol::Simple, 16}, true);
  });
}

}  // namespace
}  // namespace ccforge::sim
