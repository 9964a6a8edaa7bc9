// Routes across a leaf-spine fabric: ndv5-x128 has 4 leaves per rail (32 nodes each) and 32 spines.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace ccforge::topo {
namespace {

using testing::bundled;
using testing::source_path;

constexpr int kNodesPerLeaf = 32;

std::vector<std::string> switches_on(const Topology& t, const Route& r, const std::string& prefix) {
  std::vector<std::string> names;
  for (LinkId id : r.links) {
    const std::string& name = t.vertex(t.link(id).dst).name;
    if (name.starts_with(prefix)) names.push_back(name);
  }
  return names;
}

VertexId nic_leaving(const Topology& t, const Route& r) {
  for (LinkId id : r.links) {
    if (t.link(id).kind == LinkKind::Nic && t.vertex(t.link(id).src).kind == VertexKind::Nic) return t.link(id).src;
  }
  ADD_FAILURE() << "route leaves through no NIC";
  return VertexId{};
}

const Topology& x128() {
  static const Topology t = load_topology(bundled("ndv5-x128.xml"));
  return t;
}

// NCCL's point-to-point transport sends from the NIC of the sender's node's GPU with the receiver's local
// index (PXN), so the data stays on the receiver's rail between leaves too and enters through its own NIC.
TEST(FabricRoutes, CrossLeafRoutesStayOnTheReceiversRail) {
  const Topology& t = x128();
  const int g = t.gpus_per_node();
  const int far_node = kNodesPerLeaf + 8;  // under the next leaf of every rail
  for (int a = 0; a < g; ++a) {
    for (int j = 0; j < g; ++j) {
      const int b = far_node * g + j;
      const Route& r = t.route(a, b);
      EXPECT_EQ(r.path_class, PathClass::Net);
      EXPECT_EQ(nic_leaving(t, r).v, t.gpu(j).nearest_nic->v) << a << "->" << b;
      EXPECT_EQ(switches_on(t, r, "spine").size(), 1u) << a << "->" << b;
      EXPECT_EQ(switches_on(t, r, "leaf").size(), 2u) << a << "->" << b;
      EXPECT_EQ(r.bottleneck, t.gpu(b).nic_bandwidth);
    }
  }
}

// The spine is the destination's (InfiniBand ftree / D-Mod-K): one per NIC port of the leaf, the same from
// every sender, so the 32 NICs under one leaf are reached over 32 different spine links.
TEST(FabricRoutes, SpineFollowsTheDestinationAndSpreadsALeafsNics) {
  const Topology& t = x128();
  const int g = t.gpus_per_node();
  const std::vector<int> senders{0, 5 * g + 3, 100 * g};  // leaf 0 (two nodes) and leaf 3 of rail 0
  std::set<std::string> spines;
  for (int node = kNodesPerLeaf; node < 2 * kNodesPerLeaf; ++node) {
    const int d = node * g;
    const std::vector<std::string> first = switches_on(t, t.route(senders[0], d), "spine");
    ASSERT_EQ(first.size(), 1u);
    for (int s : senders) EXPECT_EQ(switches_on(t, t.route(s, d), "spine"), first) << s << "->" << d;
    spines.insert(first.front());
  }
  EXPECT_EQ(spines.size(), static_cast<std::size_t>(kNodesPerLeaf));
}

// A degraded leaf uplink is passed over while wider spines join the two leaves; a failed one is gone.
TEST(FabricRoutes, DegradedAndFailedUplinksArePassedOver) {
  const Topology degraded = x128().with_changes({parse_degradation("link:leaf0-spine0=0.5")});
  const Topology failed = x128().with_changes({parse_failure("link:leaf0-spine1")});
  const int g = degraded.gpus_per_node();
  std::set<std::string> spines;
  for (int node = kNodesPerLeaf; node < 2 * kNodesPerLeaf; ++node) {
    const Route& r = degraded.route(0, node * g);
    EXPECT_EQ(r.bottleneck, degraded.gpu(0).nic_bandwidth);
    for (const std::string& spine : switches_on(degraded, r, "spine")) spines.insert(spine);
    EXPECT_EQ(switches_on(failed, failed.route(0, node * g), "spine").size(), 1u);
    EXPECT_NE(switches_on(failed, failed.route(0, node * g), "spine").front(), "spine1");
  }
  EXPECT_FALSE(spines.count("spine0"));
  EXPECT_EQ(spines.size(), static_cast<std::size_t>(kNodesPerLeaf - 1));
}

// RCCL keeps PXN off below 64 ranks on MI300X (topology/src/routes.cpp pxn_enabled): a GPU sends into
// the network from its own NIC, not over xGMI to the receiver's rail GPU; from 64 ranks on it relays, as
// NCCL always does.
TEST(FabricRoutes, RcclSendsFromItsOwnNicBelow64Ranks) {
  const Topology two = load_topology(source_path("tests/sim/nccl_mi300x_x2.xml"));
  const std::filesystem::path eight_nodes = std::filesystem::temp_directory_path() / ("ccforge_mi300x_x8_" + std::to_string(::getpid()) + ".xml");
  {
    std::ofstream out(eight_nodes);
    out << "<cluster name=\"mi300x-x8\" nodes=\"8\" node=\"" << bundled("mi300x.xml").string()
        << "\" fabric=\"rail-optimized\" nic_speed_gbps=\"400\" switch_latency_us=\"0.13\" switch_ports=\"64\" oversubscription=\"1\"/>\n";
  }
  const Topology eight = load_topology(eight_nodes);
  std::filesystem::remove(eight_nodes);
  ASSERT_EQ(eight.num_gpus(), 64);
  for (const Topology* t : {&two, &eight}) {
    const int g = t->gpus_per_node();
    const Route& r = t->route(0, g + 3);  // local GPU 0 to the next node's GPU 3
    ASSERT_FALSE(r.links.empty());
    const bool relayed = t->link(r.links.front()).kind == LinkKind::Xgmi;
    EXPECT_EQ(relayed, t == &eight) << t->name();
    EXPECT_EQ(nic_leaving(*t, r).v, t->gpu(relayed ? 3 : 0).nearest_nic->v) << t->name();
  }
  const Topology ndv5 = load_topology(bundled("ndv5-x2.xml"));
  EXPECT_NE(ndv5.link(ndv5.route(0, 8 + 3).links.front()).kind, LinkKind::Pcie);  // NCCL: PXN over NVLink
}

// Without PXN a slower own NIC is still the way out: RCCL has no path class that relays to another GPU's
// NIC, so a degraded NIC cable slows the route instead of sending it over xGMI to a wider NIC.
TEST(FabricRoutes, RcclKeepsItsOwnNicWhenItsCableIsDegraded) {
  const Topology two = load_topology(source_path("tests/sim/nccl_mi300x_x2.xml"));
  const std::string own_cable = two.vertex(*two.gpu(0).nearest_nic).name + "-leaf0";
  const Topology degraded = two.with_changes({parse_degradation("link:" + own_cable + "=0.5")});
  const int g = two.gpus_per_node();
  for (int dst : {g, g + 3}) {
    const Route& r = degraded.route(0, dst);
    ASSERT_FALSE(r.links.empty());
    EXPECT_NE(degraded.link(r.links.front()).kind, LinkKind::Xgmi) << "to rank " << dst;
    EXPECT_EQ(nic_leaving(degraded, r).v, degraded.gpu(0).nearest_nic->v) << "to rank " << dst;
    EXPECT_DOUBLE_EQ(r.bottleneck.bytes_per_s, 0.5 * two.route(0, dst).bottleneck.bytes_per_s) << "to rank " << dst;
  }
  // A slow leaf uplink on the way is passed over through another spine, from the same own NIC.
  const std::vector<std::string> spines = switches_on(two, two.route(0, g + 3), "spine");
  ASSERT_EQ(spines.size(), 1u);
  const Topology slow_uplink = two.with_changes({parse_degradation("link:leaf0-" + spines.front() + "=0.5")});
  const Route& r = slow_uplink.route(0, g + 3);
  EXPECT_EQ(nic_leaving(slow_uplink, r).v, slow_uplink.gpu(0).nearest_nic->v);
  EXPECT_EQ(r.bottleneck, two.route(0, g + 3).bottleneck);
  EXPECT_NE(switches_on(slow_uplink, r, "spine"), spines);
}

}  // namespace
}  // namespace ccforge::topo
