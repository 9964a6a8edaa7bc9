// What-if changes: failed NICs re-pair their GPUs and re-route, failed cables vanish, degraded cables
// slow down, and wrong names or fractions are one-line errors naming what is valid.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include "diag_message.hpp"

#include <string>
#include <vector>

namespace ccforge::topo {
namespace {

using testing::bundled;
using ccforge::testing::diag_message;

Topology changed(const Topology& t, const std::vector<std::string>& fail, const std::vector<std::string>& degrade = {}) {
  std::vector<TopologyChange> changes;
  for (const auto& f : fail) changes.push_back(parse_failure(f));
  for (const auto& d : degrade) changes.push_back(parse_degradation(d));
  return t.with_changes(changes);
}

bool touches(const Topology& t, const Route& r, const std::string& vertex) {
  for (LinkId id : r.links)
    if (t.vertex(t.link(id).src).name == vertex || t.vertex(t.link(id).dst).name == vertex) return true;
  return false;
}

std::string nic_of(const Topology& t, int rank) { return t.vertex(*t.gpu(rank).nearest_nic).name; }

int links_of_kind(const Topology& t, LinkKind kind) {
  int n = 0;
  for (const Link& l : t.links()) n += l.kind == kind;
  return n;
}

TEST(WhatIf, FailedNicReroutesItsGpuThroughAnotherNic) {
  const Topology healthy = load_topology(bundled("ndv5-x2.xml"));
  const Topology t = changed(healthy, {"nic:n0/mlx5_0"});
  EXPECT_EQ(t.name(), "ndv5-x2 (fail nic:n0/mlx5_0)");
  // GPU 0 pairs with a NIC of its own NUMA node; the others keep theirs.
  EXPECT_EQ(nic_of(t, 0), "n0/mlx5_1");
  EXPECT_EQ(t.gpu(0).nic_bandwidth, t.gpu(1).nic_bandwidth);
  EXPECT_EQ(nic_of(t, 2), "n0/mlx5_2");
  for (int peer = 8; peer < 16; ++peer) {
    for (const Route* r : {&t.route(0, peer), &t.route(peer, 0)}) {
      EXPECT_EQ(r->path_class, PathClass::Net);
      EXPECT_FALSE(touches(t, *r, "n0/mlx5_0")) << "peer " << peer;
    }
  }
  // Out of node 0 over NVLink to mlx5_1's GPU (NCCL's PXN), then through mlx5_1.
  EXPECT_TRUE(touches(t, t.route(0, 9), "n0/mlx5_1"));
  EXPECT_TRUE(touches(t, t.route(0, 9), "n0/0002:00:00.0"));
  // The loaded topology is untouched.
  EXPECT_EQ(nic_of(healthy, 0), "n0/mlx5_0");
  EXPECT_TRUE(touches(healthy, healthy.route(0, 8), "n0/mlx5_0"));
  EXPECT_EQ(healthy.name(), "ndv5-x2");
}

TEST(WhatIf, NicNamesTakeTheNodeNumber) {
  const Topology x2 = load_topology(bundled("ndv5-x2.xml"));
  // Rank 11 (node 1, NUMA 0) takes the first NIC of its NUMA node: each serves one GPU, a tie.
  EXPECT_EQ(nic_of(changed(x2, {"nic:1/mlx5_3"}), 11), "n1/mlx5_0");
  const Topology node = load_topology(bundled("ndv5.xml"));
  const Topology t = changed(node, {"nic:0/mlx5_3"});
  EXPECT_NE(nic_of(t, 3), "mlx5_3");
  EXPECT_EQ(t.vertex(*t.gpu(3).nearest_nic).numa, t.gpu(3).numa);
}

TEST(WhatIf, FailedCableIsRemovedBothWaysAndItsNicCountsAsFailed) {
  const Topology healthy = load_topology(bundled("ndv5-x2.xml"));
  const Topology t = changed(healthy, {"link:n0/mlx5_0-leaf0"});
  EXPECT_EQ(links_of_kind(t, LinkKind::Nic), links_of_kind(healthy, LinkKind::Nic) - 2);
  EXPECT_EQ(nic_of(t, 0), "n0/mlx5_1");
  EXPECT_EQ(t.route(0, 8).path_class, PathClass::Net);
  EXPECT_FALSE(touches(t, t.route(0, 8), "n0/mlx5_0"));
}

TEST(WhatIf, DegradedCableRunsAtItsFraction) {
  // GPU 0's only way into the NVSwitch: its routes to peers run at half the bandwidth.
  const Topology node = load_topology(bundled("ndv5.xml"));
  const Topology slow = changed(node, {}, {"link:0001:00:00.0-nvswitch=0.5"});
  EXPECT_DOUBLE_EQ(slow.route(0, 1).bottleneck.bytes_per_s, node.route(0, 1).bottleneck.bytes_per_s / 2);
  EXPECT_DOUBLE_EQ(slow.route(1, 0).bottleneck.bytes_per_s, node.route(1, 0).bottleneck.bytes_per_s / 2);
  EXPECT_EQ(slow.route(1, 2).bottleneck, node.route(1, 2).bottleneck);
  EXPECT_EQ(slow.name(), "ndv5 (degrade link:0001:00:00.0-nvswitch=0.5)");
}

TEST(WhatIf, DegradedNicPortSlowsTheNicAndRoutesGoAroundIt) {
  const Topology healthy = load_topology(bundled("ndv5-x2.xml"));
  const Topology t = changed(healthy, {}, {"link:leaf0-n0/mlx5_0=0.5"});
  // The port trains at half its rate, which NCCL reads as the NIC's speed.
  EXPECT_DOUBLE_EQ(t.gpu(0).nic_bandwidth.bytes_per_s, healthy.gpu(0).nic_bandwidth.bytes_per_s / 2);
  EXPECT_EQ(t.gpu(1).nic_bandwidth, healthy.gpu(1).nic_bandwidth);
  // Routes of one class prefer the wider path (NCCL's rule), so node 1 is reached through another NIC.
  EXPECT_TRUE(touches(healthy, healthy.route(0, 8), "leaf0"));
  EXPECT_FALSE(touches(t, t.route(0, 8), "n0/mlx5_0"));
  EXPECT_EQ(t.route(0, 8).bottleneck, healthy.route(0, 8).bottleneck);
  EXPECT_GT(t.route(0, 8).latency, healthy.route(0, 8).latency);
}

// One node: its NICs are "mlx5_0" without a node prefix, yet --help says nic:NODE/NAME and the error
// lists the bare names. Every spelling the error suggests, and node 0 in both NODE forms, must be taken.
TEST(WhatIf, OneNodeTakesTheSpellingsItSuggests) {
  const Topology t = load_topology(bundled("ndv5.xml"));
  const std::string message = diag_message([&] { changed(t, {"nic:mlx5_9"}); });
  EXPECT_EQ(message, "--fail: 'nic:mlx5_9': ndv5 has no such NIC (e.g. --fail nic:mlx5_0; NICs: mlx5_0, mlx5_1, mlx5_2, mlx5_3, "
                     "mlx5_4, mlx5_5, mlx5_6, mlx5_7)");
  for (const std::string spelling : {"nic:mlx5_0", "nic:0/mlx5_0", "nic:n0/mlx5_0"})
    EXPECT_EQ(nic_of(changed(t, {spelling}), 0), "mlx5_1") << spelling;
  EXPECT_NE(diag_message([&] { changed(t, {"nic:1/mlx5_0"}); }).find("has no such NIC"), std::string::npos);
}

TEST(WhatIf, UnknownNamesListTheValidOnes) {
  const Topology t = load_topology(bundled("ndv5-x2.xml"));
  const std::string nic = diag_message([&] { changed(t, {"nic:n0/mlx5_9"}); });
  EXPECT_TRUE(nic.starts_with("--fail: 'nic:n0/mlx5_9': ndv5-x2 has no such NIC (e.g. --fail nic:n0/mlx5_0; NICs: n0/mlx5_0, n0/mlx5_1, n0/mlx5_2, ")) << nic;
  EXPECT_TRUE(nic.ends_with(", n1/mlx5_6, n1/mlx5_7)")) << nic;
  // Longer lists stop after 16 names and say how many there are.
  const Topology x16 = load_topology(bundled("ndv5-x16.xml"));
  EXPECT_TRUE(diag_message([&] { changed(x16, {"nic:n0/mlx5_9"}); }).ends_with(", n1/mlx5_7, ... (128 in all))"));
  EXPECT_NE(diag_message([&] { changed(t, {"link:n0/mlx5_0-leaf1"}); }).find("has no such link (failed already, or never there) (links of n0/mlx5_0: "),
            std::string::npos);
  EXPECT_NE(diag_message([&] { changed(t, {}, {"link:foo-bar=0.5"}); }).find("--degrade: 'link:foo-bar=0.5': ndv5-x2 has no vertex of that name"),
            std::string::npos);
  // A cable failed once is gone: failing or degrading it again names it as missing.
  EXPECT_NE(diag_message([&] { changed(t, {"link:n0/mlx5_0-leaf0"}, {"link:n0/mlx5_0-leaf0=0.5"}); }).find("has no such link"), std::string::npos);
}

TEST(WhatIf, MalformedChangesNameTheFlagAndTheForm) {
  EXPECT_EQ(diag_message([] { parse_failure("gpu:0"); }), "--fail: 'gpu:0': neither a NIC nor a link (use nic:NODE/NAME or link:A-B)");
  EXPECT_EQ(diag_message([] { parse_failure("link:leaf0"); }), "--fail: 'link:leaf0': a link names its two ends (use nic:NODE/NAME or link:A-B)");
  EXPECT_EQ(diag_message([] { parse_degradation("link:a-b"); }),
            "--degrade: 'link:a-b': no fraction (use link:A-B=FRACTION, e.g. link:n0/mlx5_0-leaf0=0.5)");
  // 1e-12 made times wrap around int64 picoseconds: faster than healthy.
  for (const char* bad : {"0", "1.5", "-0.5", "nan", "inf", "half", "", "1e-12", "0.0009"}) {
    const std::string message = diag_message([&] { parse_degradation(std::string("link:a-b=") + bad); });
    EXPECT_NE(message.find("allowed: >= 0.001 and <= 1"), std::string::npos) << bad << ": " << message;
  }
  EXPECT_DOUBLE_EQ(parse_degradation("link:a-b=0.25").fraction, 0.25);
  EXPECT_DOUBLE_EQ(parse_degradation("link:a-b=0.001").fraction, 0.001);
}

TEST(WhatIf, CuttingAGpuOffIsAnError) {
  const Topology t = load_topology(bundled("ndv5-x2.xml"));
  std::vector<std::string> node1;
  for (int i = 0; i < 8; ++i) node1.push_back("nic:n1/mlx5_" + std::to_string(i));
  EXPECT_NE(diag_message([&] { changed(t, node1); }).find("GPU rank 8 (n1/0001:00:00.0) is cut off from GPU rank 0 (no collective can run"),
            std::string::npos);
}

// What a part derives from a topology (sim's NCCL channel search) stays with that topology: made once,
// shared by its copies, and never handed to a what-if variant, even one whose links add up the same.
TEST(WhatIf, DerivedValuesStayWithTheirTopology) {
  const Topology healthy = load_topology(bundled("ndv5-x2.xml"));
  const Topology a = changed(healthy, {"nic:n0/mlx5_0"});
  const Topology b = changed(healthy, {"nic:n0/mlx5_1"});
  static const int key = 0;
  int made = 0;
  const auto make = [&] { return std::make_shared<const int>(++made); };
  const auto value = [&](const Topology& t) { return *static_cast<const int*>(t.derived(&key, make).get()); };
  EXPECT_EQ(value(healthy), 1);
  const Topology copy = healthy;  // NOLINT(performance-unnecessary-copy-initialization): copies share it
  EXPECT_EQ(value(copy), 1);
  EXPECT_EQ(value(a), 2);
  EXPECT_EQ(value(b), 3);
  EXPECT_EQ(value(a), 2);
  EXPECT_EQ(made, 3);
}

}  // namespace
}  // namespace ccforge::topo
