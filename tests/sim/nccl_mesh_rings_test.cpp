// NCCL's per-channel rings on direct-link meshes (MI300X xGMI, DGX-1 NVLink): channels spread over all
// GPU-GPU links, and switched nodes keep one ring order.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ccforge/sim/mesh_rings.hpp"
#include "ccforge/sim/node_rings.hpp"
#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const std::string kRoot = CCFORGE_SOURCE_DIR;

const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, topo::load_topology(kRoot + "/data/topologies/" + name)).first;
  return it->second;
}

// How many times each directed GPU pair carries a ring hop.
std::map<std::pair<int, int>, int> hops_per_pair(const std::vector<std::vector<int>>& rings) {
  std::map<std::pair<int, int>, int> uses;
  for (const auto& ring : rings) {
    for (std::size_t i = 0; i < ring.size(); ++i) ++uses[{ring[i], ring[(i + 1) % ring.size()]}];
  }
  return uses;
}

// Every ring visits every rank once and each hop is one direct GPU-to-GPU link.
void expect_rings_of_direct_links(const topo::Topology& topo, const std::vector<std::vector<int>>& rings) {
  for (const auto& ring : rings) {
    ASSERT_EQ(std::set<int>(ring.begin(), ring.end()).size(), static_cast<std::size_t>(topo.num_gpus()));
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const topo::Route& r = topo.route(ring[i], ring[(i + 1) % ring.size()]);
      ASSERT_EQ(r.links.size(), 1u) << "ring hop " << ring[i] << "->" << ring[(i + 1) % ring.size()];
    }
  }
}

double ring_busbw_1g(const topo::Topology& topo, ir::Collective coll) {
  const CallSpec call{ByteCount{1} << 30, DataType::Half};
  const SimResult r = simulate_nccl(topo, coll, call, *parse_nccl_request("nccl:ring:simple"), SimParams{});
  return algbw_gbs(call.bytes, r.time) * ir::bus_bandwidth_factor(coll, topo.num_gpus());
}

TEST(NcclMeshRings, Mi300xChannelsUseAllSevenLinksEachWay) {
  const topo::Topology& mi300x = load("mi300x.xml");
  const auto rings = mesh_rings(mi300x);
  expect_rings_of_direct_links(mi300x, rings);
  const auto uses = hops_per_pair(rings);
  // 8 fully connected GPUs: 56 directed links, each carrying exactly one of the channels' rings.
  EXPECT_EQ(uses.size(), 56u);
  for (const auto& [pair, n] : uses) EXPECT_EQ(n, 1) << pair.first << "->" << pair.second;
  std::map<int, int> out_links, in_links;
  for (const auto& [pair, n] : uses) ++out_links[pair.first], ++in_links[pair.second];
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(out_links[g], 7) << "GPU " << g;
    EXPECT_EQ(in_links[g], 7) << "GPU " << g;
  }
  // One ring is bounded by one xGMI link per hop; the channels together must beat that several times.
  const double link_gbs = mi300x.link(mi300x.route(0, 1).links[0]).bandwidth.gbps();
  for (ir::Collective coll : {ir::Collective::AllReduce, ir::Collective::AllGather}) {
    EXPECT_GT(ring_busbw_1g(mi300x, coll), 4.0 * link_gbs) << ir::to_string(coll);
  }
}

TEST(NcclMeshRings, Dgx1RingsUseDistinctNvlinksWithinTheirCapacity) {
  const topo::Topology& dgx1 = load("dgx1-v100.xml");
  const auto rings = mesh_rings(dgx1);
  ASSERT_GE(rings.size(), 2u);
  expect_rings_of_direct_links(dgx1, rings);
  // A pair joined by a double NVLink carries at most two rings, a single NVLink one.
  double slowest = 0.0;
  for (const auto& [pair, n] : hops_per_pair(rings)) {
    const double bw = dgx1.link(dgx1.route(pair.first, pair.second).links[0]).bandwidth.gbps();
    if (slowest == 0.0 || bw < slowest) slowest = bw;
  }
  std::set<std::pair<int, int>> distinct;
  for (const auto& [pair, n] : hops_per_pair(rings)) {
    const double bw = dgx1.link(dgx1.route(pair.first, pair.second).links[0]).bandwidth.gbps();
    EXPECT_LE(n, static_cast<int>(bw / slowest + 1e-9)) << pair.first << "->" << pair.second;
    distinct.insert(pair);
  }
  // The first ring alone uses 8 links; the others add links it did not use.
  EXPECT_GT(distinct.size(), 8u);
}

TEST(NcclMeshRings, SwitchedAndPcieNodesKeepOneRingOrder) {
  EXPECT_TRUE(mesh_rings(load("ndv5.xml")).empty());
  EXPECT_TRUE(mesh_rings(load("pcie-4gpu.xml")).empty());
  EXPECT_TRUE(mesh_rings(load("ndv5-x2.xml")).empty());
  const topo::Topology ndv5_x2 = load("ndv5-x2.xml");
  EXPECT_TRUE(node_mesh_rings(ndv5_x2, rail_entries(ndv5_x2)).empty());
  EXPECT_TRUE(node_mesh_rings(load("mi300x.xml"), {0, 1, 2, 3, 4, 5, 6, 7}).empty());  // one node: mesh_rings
}

// Across mesh nodes each channel crosses a node on its own links (they all took GPU a -> a+1 before, one
// link carrying every channel: 2-node MI300X ring allreduce busbw 48 GB/s, a sixth of one node's). RCCL
// sends from each GPU's own NIC at 16 ranks (no PXN relay), so a channel's shape in a node is a
// Hamiltonian path from the GPU its NIC feeds to a GPU whose NIC takes it out, as in RCCL's rome_model_81:
// 8 paths of 7 links use all 56 xGMI links once, and every NIC carries one channel each way.
TEST(NcclMeshRings, ChannelsCrossMeshNodesOnDisjointLinks) {
  const topo::Topology topo = topo::load_topology(kRoot + "/tests/sim/nccl_mi300x_x2.xml");
  const std::vector<int> entries = rail_entries(topo);
  ASSERT_EQ(entries.size(), 8u);
  const auto paths = node_mesh_rings(topo, entries);
  ASSERT_EQ(paths.size(), 8u);
  // With distinct ends and distinct second GPUs (a tree channel's second NIC is its ring's second GPU's)
  // the search finds RCCL's own hand-made layout: ROCm/rccl @0cbce2a src/graph/rome_models.cc
  // rome_model_81 .ringBase, its first eight rings without the NICs.
  const std::vector<std::vector<int>> rome_model_81 = {
      {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 2, 4, 3, 5, 7, 6}, {2, 5, 0, 3, 6, 1, 7, 4}, {3, 7, 0, 4, 2, 1, 6, 5},
      {4, 6, 2, 7, 3, 0, 5, 1}, {5, 4, 7, 1, 3, 2, 6, 0}, {6, 3, 1, 4, 0, 7, 5, 2}, {7, 2, 0, 6, 4, 1, 5, 3}};
  EXPECT_EQ(paths, rome_model_81);
  const int rings = multi_node_ring_count(entries, paths);
  EXPECT_EQ(rings, 8);
  std::map<std::uint32_t, int> uses;  // link -> channels crossing it
  std::set<int> last_gpus;
  for (int c = 0; c < rings; ++c) {
    const std::vector<int> ring = multi_node_ring(topo, entries, paths, c);
    ASSERT_EQ(std::set<int>(ring.begin(), ring.end()).size(), static_cast<std::size_t>(topo.num_gpus()));
    EXPECT_EQ(ring.front(), entries[static_cast<std::size_t>(c)]);
    last_gpus.insert(ring[static_cast<std::size_t>(topo.gpus_per_node()) - 1]);
    for (std::size_t i = 0; i < ring.size(); ++i) {
      for (LinkId l : topo.route(ring[i], ring[(i + 1) % ring.size()]).links) ++uses[l.v];
    }
  }
  EXPECT_EQ(last_gpus.size(), 8u);  // each channel leaves node 0 through another NIC
  int xgmi = 0;
  std::map<std::uint32_t, int> nic_out;  // NIC vertex -> channels it sends
  for (const auto& [link, n] : uses) {
    const topo::Link& l = topo.link(LinkId{link});
    if (l.kind == topo::LinkKind::Xgmi) {
      EXPECT_EQ(n, 1) << topo.vertex(l.src).name << " -> " << topo.vertex(l.dst).name;
      ++xgmi;
    }
    if (l.kind == topo::LinkKind::Nic && topo.vertex(l.src).kind == topo::VertexKind::Nic) nic_out[l.src.v] += n;
  }
  EXPECT_EQ(xgmi, 2 * 56);
  EXPECT_EQ(nic_out.size(), 16u);
  for (const auto& [nic, n] : nic_out) EXPECT_EQ(n, 1) << topo.vertex(VertexId{nic}).name;
  // The ring then moves several links' worth: one xGMI link is 48 GB/s.
  const double link_gbs = topo.link(topo.route(0, 1).links[0]).bandwidth.gbps();
  EXPECT_GT(ring_busbw_1g(topo, ir::Collective::AllReduce), 4.0 * link_gbs);
}

}  // namespace
}  // namespace ccforge::sim
