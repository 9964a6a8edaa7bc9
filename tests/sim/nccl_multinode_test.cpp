// NCCL's multi-node algorithms: tree shapes as NCCL builds them, data movement per link class, NCCL's
// choice per size and node count, exactness of head folding, and the one-line errors.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/sim.hpp"
#include "lowering.hpp"
#include "nccl_lowering.hpp"
#include "nccl_model.hpp"
#include "trees.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const std::string kRoot = CCFORGE_SOURCE_DIR;

const topo::Topology& load(const std::string& path) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, topo::load_topology(kRoot + "/" + path)).first;
  return it->second;
}
const topo::Topology& ndv5() { return load("data/topologies/ndv5.xml"); }
const topo::Topology& ndv5_x2() { return load("data/topologies/ndv5-x2.xml"); }
const topo::Topology& ndv5_x16() { return load("data/topologies/ndv5-x16.xml"); }
const topo::Topology& one_gpu_x8() { return load("tests/sim/nccl_h100_1gpu_x8.xml"); }

CallSpec half(ByteCount bytes) { return CallSpec{bytes, DataType::Half}; }

SimParams nccl_228() {
  SimParams p;
  set_param(p, "sim.nccl.version", 2.28, "test");
  return p;
}

TEST(NcclTrees, MatchNcclsDrawingOf14Nodes) {
  // src/graph/trees.cc draws tree 0 for 14 ranks: 0-8, 8-{4,12}, 4-{2,6}, 12-{10,13}, 2-{1,3}, 10-{9,11}.
  using nccl::node_tree;
  EXPECT_EQ(node_tree(14, 0, 0).parent, -1);
  EXPECT_EQ(node_tree(14, 0, 0).child1, 8);
  EXPECT_EQ(node_tree(14, 8, 0).child0, 4);
  EXPECT_EQ(node_tree(14, 8, 0).child1, 12);
  EXPECT_EQ(node_tree(14, 12, 0).child0, 10);
  EXPECT_EQ(node_tree(14, 12, 0).child1, 13);
  EXPECT_EQ(node_tree(14, 13, 0).parent, 12);
  EXPECT_EQ(node_tree(14, 11, 0).parent, 10);
  EXPECT_EQ(node_tree(14, 1, 0).parent, 2);
  // Its complement for 12 ranks is the mirror image: root 11 above 3.
  EXPECT_EQ(node_tree(12, 11, 1).parent, -1);
  EXPECT_EQ(node_tree(12, 11, 1).child1, 3);
  EXPECT_EQ(node_tree(12, 0, 1).parent, 1);
}

TEST(NcclTrees, BothTreesSpanAllNodesAndEveryNodeIsALeafInOne) {
  for (int n = 2; n <= 64; ++n) {
    for (int which = 0; which < 2; ++which) {
      int roots = 0;
      for (int v = 0; v < n; ++v) {
        const nccl::NodeLinks l = nccl::node_tree(n, v, which);
        if (l.parent < 0) ++roots;
        for (int c : {l.child0, l.child1}) {
          if (c >= 0) {
            EXPECT_EQ(nccl::node_tree(n, c, which).parent, v) << n << " " << which << " " << v;
          }
        }
      }
      EXPECT_EQ(roots, 1) << n;
    }
    if (n % 2 != 0) continue;  // the mirrored complement (even n) is what gives the double binary tree
    for (int v = 0; v < n; ++v) {
      const auto t0 = nccl::node_tree(n, v, 0);
      const auto t1 = nccl::node_tree(n, v, 1);
      const bool leaf0 = t0.child0 < 0 && t0.child1 < 0;
      const bool leaf1 = t1.child0 < 0 && t1.child1 < 0;
      EXPECT_TRUE(leaf0 || leaf1) << "node " << v << " of " << n << " is inner in both trees";
    }
  }
}

// Payload bytes (weight x wire bytes) by where a task goes: across the network or inside a node.
struct Moved {
  double network = 0.0;
  double intra = 0.0;
  std::size_t network_tasks = 0;
};

Moved moved(const topo::Topology& topo, Lowering& low) {
  Moved m;
  const auto& paths = low.graph().paths();
  for (const Task& t : low.graph().tasks()) {
    if (t.path == kNoPath) continue;
    bool net = false;
    for (std::uint32_t l : paths[t.path]) {
      const auto kind = topo.links()[l].kind;
      net = net || kind == topo::LinkKind::Network || kind == topo::LinkKind::Nic;
    }
    (net ? m.network : m.intra) += t.weight * t.wire_bytes;
    if (net) ++m.network_tasks;
  }
  return m;
}

TEST(NcclMultiNode, TreeAllreduceSendsEveryChannelUpAndDownEachEdgeOnce) {
  // 2 nodes x 8 GPUs: per channel, 7 chain hops per node up and 7 down (28 intra-node sends) and
  // one network edge up and down (2), each carrying the channel's share: totals 28 x and 2 x the buffer.
  const SimParams params;
  Lowering low(ndv5_x2(), params.constants, nullptr);
  const double bytes = 64.0 * 1024 * 1024;
  nccl::lower_tree(low, nccl::NcclCall{ir::Collective::AllReduce, bytes, ir::Protocol::Simple, 32}, false);
  const Moved m = moved(ndv5_x2(), low);
  EXPECT_NEAR(m.network, 2 * bytes, 1e-6 * bytes);
  EXPECT_NEAR(m.intra, 28 * bytes, 1e-6 * bytes);
}

// NCCL connects the fewest NVLS heads any node has (v2.26.2-1 src/graph/connect.cc: minHeadNum over all
// ranks), not node 0's: with a NIC of node 1 out of service node 1 has 7 heads, so every node uses 7.
TEST(NcclMultiNode, NvlsHeadsAreTheFewestAnyNodeHas) {
  EXPECT_EQ(nccl::make_view(ndv5_x2(), SimParams{}).nvls_heads, 8);
  const topo::Topology failed = ndv5_x2().with_changes({topo::parse_failure("nic:n1/mlx5_0")});
  EXPECT_EQ(nccl::nic_heads(failed, 0).size(), 8u);
  EXPECT_EQ(nccl::nic_heads(failed, 1).size(), 7u);
  EXPECT_EQ(nccl::make_view(failed, SimParams{}).nvls_heads, 7);
  EXPECT_EQ(nccl::nvls_connected_heads(failed), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(NcclMultiNode, NvlsTreeSendsEachHeadShareUpAndDownEveryTreeEdge) {
  // 16 nodes: 15 tree edges per tree; every channel's buffer, split over the 8 heads, crosses each
  // edge once up and once down: 2 x 15 x the buffer over the network. NVLS ops stay inside nodes.
  const SimParams params;
  const double bytes = 256.0 * 1024 * 1024;
  Lowering low(ndv5_x16(), params.constants, nullptr);
  nccl::lower_nvls_tree(low, nccl::NcclCall{ir::Collective::AllReduce, bytes, ir::Protocol::Simple, 16}, false);
  EXPECT_NEAR(moved(ndv5_x16(), low).network, 2 * 15 * bytes, 1e-6 * bytes);
}

TEST(NcclMultiNode, FoldingSymmetricHeadsIsExact) {
  const SimParams params;
  for (const topo::Topology* topo : {&ndv5_x2(), &ndv5_x16()}) {
    for (double bytes : {1024.0 * 1024, 64.0 * 1024 * 1024}) {
      const nccl::NcclCall call{ir::Collective::AllReduce, bytes, ir::Protocol::Simple, 16};
      Lowering all(*topo, params.constants, nullptr), one(*topo, params.constants, nullptr);
      nccl::lower_nvls_tree(all, call, false);
      nccl::lower_nvls_tree(one, call, true);
      EXPECT_LT(one.graph().size() * 4, all.graph().size());  // it did fold (8 heads into 1)
      const double t_all = all.run().makespan.us();
      const double t_one = one.run().makespan.us();
      EXPECT_NEAR(t_one, t_all, 1e-9 * t_all) << topo->name() << " " << bytes;
    }
  }
}

TEST(NcclMultiNode, FoldingRotatedRingsIsExact) {
  // Across nodes the 8 distinct rings of ND H100 v5 are rotations of one another (local GPU and rail),
  // and on one leaf per rail each ring is its first node's 8 positions shifted node by node
  // (nccl_ring_folding_test.cpp has the rest).
  const SimParams params;
  struct Case {
    const topo::Topology* topo;
    ir::Protocol proto;
    ir::Collective coll;
  };
  for (const Case& c : {Case{&ndv5_x2(), ir::Protocol::LL128, ir::Collective::AllReduce},
                        Case{&ndv5_x2(), ir::Protocol::Simple, ir::Collective::AllGather},
                        Case{&ndv5_x16(), ir::Protocol::Simple, ir::Collective::AllReduce}}) {
    const nccl::NcclCall call{c.coll, 4.0 * 1024 * 1024, c.proto, 32};
    Lowering all(*c.topo, params.constants, nullptr), one(*c.topo, params.constants, nullptr);
    nccl::lower_ring(all, call, false);
    nccl::lower_ring(one, call, true);
    EXPECT_EQ(one.graph().size() * 8 * static_cast<std::size_t>(c.topo->num_nodes()), all.graph().size());  // it did fold
    const double t_all = all.run().makespan.us();
    const double t_one = one.run().makespan.us();
    EXPECT_NEAR(t_one, t_all, 1e-9 * t_all) << c.topo->name() << " " << ir::to_string(c.proto);
  }
}

// Both trees' 8 rotations each (16 copies: tree 1 is tree 0 mirrored over an even node count) folded
// into one channel give the time of every channel lowered apart, across node counts, protocols, sizes
// (one chunk to many, a partial last one) and channels per shape. (LL does not fold: its GPU-wide issue
// rate is shared by a GPU's channels.)
TEST(NcclMultiNode, FoldingRotatedAndMirroredTreesIsExact) {
  const SimParams params;
  for (const topo::Topology* topo : {&ndv5_x2(), &ndv5_x16()}) {
    for (auto proto : {ir::Protocol::LL128, ir::Protocol::Simple}) {
      for (double mib : {0.25, 8.0, 37.0}) {
        for (int nchannels : {16, 32}) {
          const nccl::NcclCall call{ir::Collective::AllReduce, mib * 1024 * 1024, proto, nchannels};
          Lowering all(*topo, params.constants, nullptr), one(*topo, params.constants, nullptr);
          nccl::lower_tree(all, call, false);
          nccl::lower_tree(one, call, true);
          const std::string what = fmt::format("{} {} {} MiB {} channels", topo->name(), ir::to_string(proto), mib, nchannels);
          EXPECT_EQ(one.graph().size() * 16, all.graph().size()) << what;  // it did fold
          const double t_all = all.run().makespan.us();
          const double t_one = one.run().makespan.us();
          EXPECT_NEAR(t_one, t_all, 1e-9 * t_all) << what;
        }
      }
    }
  }
}

TEST(NcclMultiNode, PatAllgatherSendsEachPieceOnceInLog2Rounds) {
  // 8 one-GPU nodes: each rank passes on 7 of the 8 pieces (4 + 2 + 1 in dimensions 2, 1, 0), all
  // over the network: 7 x the allgather's total / 8 per rank, 3 sends per rank and chunk.
  const SimParams params = nccl_228();
  const double bytes = 8.0 * 1024 * 1024;
  Lowering low(one_gpu_x8(), params.constants, nullptr);
  nccl::lower_pat(low, nccl::NcclCall{ir::Collective::AllGather, bytes, ir::Protocol::Simple, 4});
  const Moved m = moved(one_gpu_x8(), low);
  EXPECT_NEAR(m.network, 7 * bytes, 1e-6 * bytes);
  EXPECT_DOUBLE_EQ(m.intra, 0.0);
  EXPECT_EQ(m.network_tasks, 8u * 3u * 1u);  // 256 KiB per piece and channel: one chunk
}

// Largest power of two from 1 KB to 1 GB at which NCCL's model still picks the tree.
ByteCount last_tree_size(const topo::Topology& topo) {
  ByteCount last = 0;
  for (ByteCount b = 1024; b <= (ByteCount{1} << 30); b *= 2) {
    if (nccl_choose(topo, ir::Collective::AllReduce, b, {}, SimParams{}).algo == NcclAlgo::Tree) last = b;
  }
  return last;
}

TEST(NcclMultiNode, TreeRingCrossoverMovesUpWithNodeCount) {
  // A100 (no NVLS): the tree's log2(nodes) latency beats the ring's linear one up to larger sizes as
  // nodes are added (NCCL 2.18 ncclTopoTuneModel).
  const ByteCount x2 = last_tree_size(load("tests/sim/nccl_ndv4_x2.xml"));
  const ByteCount x16 = last_tree_size(load("tests/sim/nccl_ndv4_x16.xml"));
  EXPECT_GT(x2, 0u);
  EXPECT_GT(x16, 4 * x2);
  EXPECT_EQ(nccl_choose(load("tests/sim/nccl_ndv4_x2.xml"), ir::Collective::AllReduce, 1u << 30, {}, SimParams{}).algo,
            NcclAlgo::Ring);
}

TEST(NcclMultiNode, H100ClustersUseTreeSmallAndNvlsTreeLarge) {
  const SimParams params;
  EXPECT_EQ(nccl_choose(ndv5_x2(), ir::Collective::AllReduce, 1024, {}, params).name(), "nccl:tree:LL");
  EXPECT_EQ(nccl_choose(ndv5_x2(), ir::Collective::AllReduce, 1u << 30, {}, params).name(), "nccl:nvlstree:Simple");
  EXPECT_EQ(nccl_choose(ndv5_x16(), ir::Collective::AllReduce, 1u << 30, {}, nccl_228()).name(),
            "nccl:nvlstree:Simple");
  // Allgather has no tree: ring across nodes (PAT needs one GPU per node).
  EXPECT_EQ(nccl_choose(ndv5_x2(), ir::Collective::AllGather, 1u << 20, {}, nccl_228()).algo, NcclAlgo::Ring);
}

TEST(NcclMultiNode, TwoNodeSmallAllreduceIsTensOfMicroseconds) {
  // nccl-tests on 2 IB-connected 8x H100 nodes report ~20-40 us at 1 KB. The simulator got 193 us
  // while every ring step waited for the previous step's network latency.
  const SimResult r = simulate_nccl(ndv5_x2(), ir::Collective::AllReduce, half(1024), {}, SimParams{});
  EXPECT_GT(r.time.us(), 20.0);
  EXPECT_LT(r.time.us(), 40.0);
}

TEST(NcclMultiNode, NetworkRingStepsPipelineLikeNcclsModel) {
  // Ring LL, 2 nodes, 1 KB: NCCL's own latency is 6.6 + 26 x 1.0 + 4 x 2.7 = 43.4 us (2.18), plus
  // 0.05 us for 1 KB at its LL bandwidth: min(llMaxBw 39, 8 ring channels x 45 GB/s x 1/4) x 16/30. The simulated ring must not charge the network latency on
  // every one of its 30 steps (that gave 193 us).
  const NcclRequest ring{NcclAlgo::Ring, ir::Protocol::LL};
  const double model = nccl_choose(ndv5_x2(), ir::Collective::AllReduce, 1024, ring, SimParams{}).model_us;
  EXPECT_NEAR(model, 43.4 + 1024 / (39.0 * 16 / 30 * 1000), 0.01);
  const double simulated = simulate_nccl(ndv5_x2(), ir::Collective::AllReduce, half(1024), ring, SimParams{}).time.us();
  EXPECT_NEAR(simulated, model, 0.25 * model);
}

TEST(NcclMultiNode, ImpossibleForcingIsAnError) {
  const NcclRequest pat{NcclAlgo::Pat, std::nullopt};
  // PAT needs one GPU per node.
  EXPECT_THROW(nccl_choose(ndv5_x2(), ir::Collective::AllGather, 1u << 20, pat, nccl_228()), DiagError);
  // ... and NCCL 2.23+; the default tables are 2.18's.
  EXPECT_THROW(nccl_choose(one_gpu_x8(), ir::Collective::AllGather, 1u << 20, pat, SimParams{}), DiagError);
  EXPECT_EQ(nccl_choose(one_gpu_x8(), ir::Collective::AllGather, 1u << 20, pat, nccl_228()).name(), "nccl:pat:Simple");
  // PAT is not an allreduce; NVLS-tree needs several nodes and NVSwitch.
  EXPECT_THROW(nccl_choose(one_gpu_x8(), ir::Collective::AllReduce, 1u << 20, pat, nccl_228()), DiagError);
  const NcclRequest nvlstree{NcclAlgo::NvlsTree, std::nullopt};
  EXPECT_THROW(nccl_choose(ndv5(), ir::Collective::AllReduce, 1u << 20, nvlstree, SimParams{}), DiagError);
  EXPECT_THROW(nccl_choose(one_gpu_x8(), ir::Collective::AllReduce, 1u << 20, nvlstree, SimParams{}), DiagError);
}

}  // namespace
}  // namespace ccforge::sim
