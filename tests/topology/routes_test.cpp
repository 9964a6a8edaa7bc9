// Routes on machines whose answers follow from their wiring.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <thread>
#include <vector>

namespace ccforge::topo {
namespace {

using testing::azure;
using testing::bundled;

// DGX-1 NVLink link counts (msccl-tools msccl/topologies/nvidia.py dgx1()), the same matrix the bundled
// file was written from; 0 = no direct link.
constexpr std::array<std::array<int, 8>, 8> kDgx1Links{{{0, 2, 1, 1, 2, 0, 0, 0},
                                                       {2, 0, 1, 2, 0, 1, 0, 0},
                                                       {1, 1, 0, 2, 0, 0, 2, 0},
                                                       {1, 2, 2, 0, 0, 0, 0, 1},
                                                       {2, 0, 0, 0, 0, 2, 1, 1},
                                                       {0, 1, 0, 0, 2, 0, 1, 2},
                                                       {0, 0, 2, 0, 1, 1, 0, 2},
                                                       {0, 0, 0, 1, 1, 2, 2, 0}}};

TEST(Routes, Dgx1DirectPairsUseTheirNvlinksAtCountTimes25GBps) {
  const Topology t = load_topology(bundled("dgx1-v100.xml"));
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      const int links = kDgx1Links[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (i == j || links == 0) continue;
      const Route& r = t.route(i, j);
      EXPECT_EQ(r.path_class, PathClass::Nvl) << i << "->" << j;
      ASSERT_EQ(r.links.size(), 1u);
      EXPECT_DOUBLE_EQ(r.bottleneck.gbps(), links * 25.0) << i << "->" << j;
    }
  }
}

TEST(Routes, Dgx1UnlinkedPairsRelayThroughOneGpuOverNvlink) {
  const Topology t = load_topology(bundled("dgx1-v100.xml"));
  // 0 and 5 share no NVLink but 0=4 and 4=5 are double links: NVB through GPU 4 at 50 GB/s.
  const Route& r = t.route(0, 5);
  EXPECT_EQ(r.path_class, PathClass::Nvb);
  ASSERT_EQ(r.links.size(), 2u);
  EXPECT_EQ(t.link(r.links[0]).dst, t.gpu(4).vertex);
  EXPECT_DOUBLE_EQ(r.bottleneck.gbps(), 50.0);
  // 0 and 6: every two-hop relay has a single link somewhere, so 25 GB/s.
  EXPECT_DOUBLE_EQ(t.route(0, 6).bottleneck.gbps(), 25.0);
  EXPECT_EQ(t.route(0, 6).path_class, PathClass::Nvb);
}

TEST(Routes, Dgx1MatrixIsSymmetricButNotUniform) {
  const Topology t = load_topology(bundled("dgx1-v100.xml"));
  double lowest = 1e9, highest = 0;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      EXPECT_DOUBLE_EQ(t.route(i, j).bottleneck.gbps(), t.route(j, i).bottleneck.gbps());
      lowest = std::min(lowest, t.route(i, j).bottleneck.gbps());
      highest = std::max(highest, t.route(i, j).bottleneck.gbps());
    }
  }
  EXPECT_DOUBLE_EQ(lowest, 25.0);
  EXPECT_DOUBLE_EQ(highest, 50.0);
}

TEST(Routes, PcieBoxUsesOneSwitchWithinASocketAndTheCpusAcross) {
  const Topology t = load_topology(bundled("pcie-4gpu.xml"));
  const Route& same = t.route(0, 1);
  EXPECT_EQ(same.path_class, PathClass::Pix);
  EXPECT_NEAR(same.bottleneck.gbps(), 16 * 16.0 * 128 / 130 / 8, 1e-9);  // Gen4 x16
  EXPECT_EQ(same.links.size(), 2u);
  const Route& across = t.route(0, 2);
  EXPECT_EQ(across.path_class, PathClass::Sys);
  EXPECT_DOUBLE_EQ(across.bottleneck.gbps(), 16.0);  // NCCL AMD_BW
  EXPECT_EQ(across.links.size(), 5u);                // GPU-switch-CPU-CPU-switch-GPU
}

TEST(Routes, Mi300xIsAFullXgmiMesh) {
  const Topology t = load_topology(bundled("mi300x.xml"));
  for (int i = 0; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(t.gpu(i).nvlink_bandwidth.gbps(), 7 * 64.0);
    EXPECT_EQ(t.gpu(i).fabric_links, 7);  // one xGMI link to each peer
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      EXPECT_EQ(t.route(i, j).links.size(), 1u);
      EXPECT_EQ(t.link(t.route(i, j).links[0]).kind, LinkKind::Xgmi);
    }
  }
}

// The NIC a route crosses between the given vertex kinds: leaving its node (NIC -> fabric) or entering it.
VertexId nic_crossed(const Topology& t, const Route& r, bool leaving) {
  for (LinkId id : r.links) {
    const Link& l = t.link(id);
    if (l.kind != LinkKind::Nic) continue;
    if (leaving && t.vertex(l.src).kind == VertexKind::Nic) return l.src;
    if (!leaving && t.vertex(l.dst).kind == VertexKind::Nic) return l.dst;
  }
  ADD_FAILURE() << "route crosses no NIC";
  return VertexId{};
}

// NDv4: two GPUs and two NICs behind each PCIe switch, so both NICs are equally close to both GPUs.
TEST(Routes, Ndv4ClusterEntersThroughTheReceiversOwnNicAndLeavesFromItsOwner) {
  const Topology t = load_topology(azure("ndv4-x2.xml"));
  const int g = t.gpus_per_node();
  for (int a = 0; a < g; ++a) {
    for (int b = g; b < 2 * g; ++b) {
      const Route& r = t.route(a, b);
      EXPECT_EQ(r.path_class, PathClass::Net);
      EXPECT_EQ(nic_crossed(t, r, false).v, t.gpu(b).nearest_nic->v) << a << "->" << b;
      const VertexId out = nic_crossed(t, r, true);
      // The sending NIC is on the receiver's rail, and its own GPU is the one that puts data into it.
      EXPECT_EQ(t.vertex(out).name.substr(3), t.vertex(*t.gpu(b).nearest_nic).name.substr(3)) << a << "->" << b;
      const Link& into_nic = t.link(*std::find_if(r.links.begin(), r.links.end(), [&](LinkId id) { return t.link(id).dst == out; }));
      EXPECT_EQ(into_nic.kind, LinkKind::Pcie);
      const int owner = b - g;
      const auto uplink = std::find_if(r.links.begin(), r.links.end(), [&](LinkId id) { return t.link(id).src == t.gpu(owner).vertex && t.link(id).kind == LinkKind::Pcie; });
      EXPECT_NE(uplink, r.links.end()) << a << "->" << b << " does not leave through GPU " << owner << "'s PCIe port";
    }
  }
}

// A ring per channel leaving each node from a different GPU towards a different GPU (NCCL's rings rotated,
// sim/src/nccl/ring.cpp) must load each NIC and PCIe port once: shared links halve the ring's bandwidth.
TEST(Routes, Ndv4RotatedRingCrossingsShareNoLink) {
  const Topology t = load_topology(azure("ndv4-x2.xml"));
  const int g = t.gpus_per_node();
  std::set<std::uint32_t> used;
  for (int c = 0; c < g; ++c) {
    for (int node = 0; node < 2; ++node) {
      const int src = node * g + (c + g - 1) % g, dst = (1 - node) * g + c;
      for (LinkId id : t.route(src, dst).links) {
        if (t.link(id).kind == LinkKind::NvSwitch) continue;  // NVSwitch ports are 300 GB/s, 12x a NIC
        EXPECT_TRUE(used.insert(id.v).second) << "channel " << c << ": " << src << "->" << dst << " shares "
                                              << t.vertex(t.link(id).src).name << ">" << t.vertex(t.link(id).dst).name;
      }
    }
  }
}

TEST(Routes, SelfRouteIsLocalAndEmpty) {
  const Topology t = load_topology(bundled("ndv5.xml"));
  EXPECT_EQ(t.route(3, 3).path_class, PathClass::Loc);
  EXPECT_TRUE(t.route(3, 3).links.empty());
}

TEST(Routes, ConcurrentFirstUsesAgreeWithSequentialOnes) {
  const Topology shared = load_topology(bundled("ndv5-x2.xml"));
  const Topology fresh = load_topology(bundled("ndv5-x2.xml"));
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k) {
    threads.emplace_back([&shared] {
      for (int s = 0; s < shared.num_gpus(); ++s) {
        for (int d = 0; d < shared.num_gpus(); ++d) (void)shared.route(s, d);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int s = 0; s < fresh.num_gpus(); ++s) {
    for (int d = 0; d < fresh.num_gpus(); ++d) {
      EXPECT_EQ(shared.route(s, d).links, fresh.route(s, d).links);
      EXPECT_EQ(shared.route(s, d).latency, fresh.route(s, d).latency);
    }
  }
}

// Routes are kept per pair asked, whatever order they are asked in: a column walk (one destination, every
// source, as a ring's hops are) gives the routes a row walk gives, and keeps only the pairs asked.
TEST(Routes, CacheKeepsOnlyTheAskedPairsAndAgreesAcrossAskingOrders) {
  const Topology by_rows = load_topology(bundled("ndv5-x16.xml"));
  const Topology by_columns = load_topology(bundled("ndv5-x16.xml"));
  const std::size_t after_load = by_columns.cached_routes();  // the loader's own reachability check
  const int p = by_columns.num_gpus();
  for (int d = p - 1; d >= 0; d -= 37) {
    for (int s = 0; s < p; ++s) (void)by_columns.route(s, d);
  }
  const std::size_t asked = static_cast<std::size_t>(p) * static_cast<std::size_t>((p - 1) / 37 + 1);
  EXPECT_LE(by_columns.cached_routes(), after_load + asked);
  EXPECT_GE(by_columns.cached_routes(), asked);
  for (int s = 0; s < p; ++s) {
    for (int d = 0; d < p; ++d) (void)by_rows.route(s, d);
  }
  for (int d = p - 1; d >= 0; d -= 37) {
    for (int s = 0; s < p; ++s) {
      EXPECT_EQ(by_rows.route(s, d).links, by_columns.route(s, d).links) << s << " -> " << d;
      EXPECT_EQ(by_rows.route(s, d).latency, by_columns.route(s, d).latency);
      EXPECT_EQ(by_rows.route(s, d).path_class, by_columns.route(s, d).path_class);
    }
  }
  // A reference taken earlier stays valid while many more routes are added.
  const Route& kept = by_columns.route(5, 77);
  const std::vector<LinkId> copy = kept.links;
  for (int s = 0; s < p; ++s) (void)by_columns.route(s, 3);
  EXPECT_EQ(kept.links, copy);
}

// A source asked fewer than 4 times is answered by a search that stops at its destination, on buffers
// reused from one search to the next (RouteFinder::route_to); a source walked row by row by its whole
// tree. Far, near and local destinations alternate, so a search that left a distance behind would
// misroute the next one.
TEST(Routes, TargetedSearchesAgreeWithWholeTrees) {
  const Topology targeted = load_topology(bundled("ndv5-x16.xml"));
  const Topology by_rows = load_topology(bundled("ndv5-x16.xml"));
  const int p = targeted.num_gpus();
  const int g = targeted.gpus_per_node();
  for (int s = 0; s < p; ++s) {
    for (int d = 0; d < p; ++d) (void)by_rows.route(s, d);
  }
  for (int s = 0; s < p; ++s) {
    for (const int d : {(s + p / 2 + 3) % p, s / g * g + (s + 1) % g, (s + g) % p}) {
      const Route& r = targeted.route(s, d);
      EXPECT_EQ(r.links, by_rows.route(s, d).links) << s << " -> " << d;
      EXPECT_EQ(r.latency, by_rows.route(s, d).latency);
      EXPECT_EQ(r.path_class, by_rows.route(s, d).path_class);
    }
  }
}

}  // namespace
}  // namespace ccforge::topo
