// RCCL's own choice on an MI300X node (sim/src/nccl/rccl_msccl.cpp): the bundled MSCCL all-pairs
// allreduce in its size ranges, RCCL's tuning model (ring) outside them and everywhere else.
#include <gtest/gtest.h>

#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/sim.hpp"
#include "topology_cache.hpp"

namespace ccforge::sim {
namespace {

// The file and the baseline differ in instances (2 vs the bundled file's 4) and in how their local
// reduce is cut; 1-64 KB they agree within 1.1 % (before the shared costs: 26 % apart).
constexpr double kAllPairsTolerance = 0.03;

NcclChoice pick(const std::string& topology, ir::Collective coll, ByteCount bytes, const std::string& request = "nccl") {
  return nccl_choose(load(topology), coll, bytes, *parse_nccl_request(request), SimParams{});
}

// The ranges of ROCm/rccl tools/msccl-algorithms/allreduce-allpairs-8n-*-op.xml, their edges included.
TEST(RcclMscclChoice, BundledAllPairsInItsRangesOnMi300x) {
  const struct {
    ByteCount bytes;
    ir::Protocol proto;
    int channels;
  } cases[] = {{1024, ir::Protocol::LL, 4},          {65536, ir::Protocol::LL, 4},
               {131072, ir::Protocol::LL, 8},        {262144, ir::Protocol::LL, 8},
               {524288, ir::Protocol::Simple, 8},    {16777216, ir::Protocol::Simple, 8}};
  for (const auto& c : cases) {
    const NcclChoice choice = pick("mi300x.xml", ir::Collective::AllReduce, c.bytes);
    EXPECT_EQ(choice.algo, NcclAlgo::AllPairs) << c.bytes;
    EXPECT_EQ(choice.proto, c.proto) << c.bytes;
    EXPECT_EQ(choice.nchannels, c.channels) << c.bytes;
    EXPECT_EQ(choice.name(), std::string("nccl:allpairs:") + ir::to_string(c.proto));
  }
}

TEST(RcclMscclChoice, TuningModelOutsideTheBundledRanges) {
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::AllReduce, 33554432).algo, NcclAlgo::Ring);  // above 16 MiB
  // Not a whole number of MSCCL loops (nchunksperloop 512 of 4-byte elements): RCCL falls back.
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::AllReduce, 524288 + 1024).algo, NcclAlgo::Ring);
  // Only allreduce has a bundled all-pairs algorithm.
  EXPECT_NE(pick("mi300x.xml", ir::Collective::AllGather, 1048576).algo, NcclAlgo::AllPairs);
  // NVIDIA nodes run NCCL, which has no bundled algorithms.
  EXPECT_NE(pick("ndv4.xml", ir::Collective::AllReduce, 1048576).algo, NcclAlgo::AllPairs);
  EXPECT_NE(pick("dgx1-v100.xml", ir::Collective::AllReduce, 1048576).algo, NcclAlgo::AllPairs);
}

// RCCL's tuner enables LL128 by default only on gfx90a (ROCm/rccl @0cbce2a src/graph/tuning.cc); on an
// MI300X node every collective it tunes picks LL or Simple, NCCL's Ampere tables would pick LL128 at 1-8 MB.
TEST(RcclMscclChoice, NoLL128OnMi300x) {
  for (ir::Collective coll : {ir::Collective::AllGather, ir::Collective::ReduceScatter, ir::Collective::Broadcast,
                              ir::Collective::Reduce, ir::Collective::AllReduce}) {
    for (ByteCount bytes = 1024; bytes <= (ByteCount{1} << 30); bytes *= 4) {
      EXPECT_NE(pick("mi300x.xml", coll, bytes).proto, ir::Protocol::LL128) << ir::to_string(coll) << " " << bytes;
    }
  }
  // NVIDIA GPUs keep it (ndv4: A100, where NCCL enables LL128 on NVLink).
  EXPECT_EQ(pick("ndv4.xml", ir::Collective::AllGather, 4194304).proto, ir::Protocol::LL128);
}

// Outside the bundled algorithms RCCL's own model decides (ROCm/rccl @0cbce2a src/graph/tuning.cc,
// tuning_model_5 of rome_model_79): busBw = 7 xGMI links x 48 GB/s (GFX94X_XGMI_WIDTH) x bwRatio (ring LL
// 0.08, Simple 1.0), latency baseLat 12 / 17 us + steps x hwLat 0.8 / 2.1 us. Allgather: LL to ~471 KB.
TEST(RcclMscclChoice, RcclTuningModelOutsideTheBundledAlgorithms) {
  const double total_bw = 7 * 48.0, ag_ratio = 8.0 / 7.0;
  const NcclChoice ll = pick("mi300x.xml", ir::Collective::AllGather, 393216);
  EXPECT_EQ(ll.name(), "nccl:ring:LL");
  EXPECT_NEAR(ll.model_us, 12 + 7 * 0.8 + 393216 / (1000 * total_bw * 0.08 * ag_ratio), 1e-3);
  const NcclChoice simple = pick("mi300x.xml", ir::Collective::AllGather, 524288);
  EXPECT_EQ(simple.name(), "nccl:ring:Simple");
  EXPECT_NEAR(simple.model_us, 17 + 7 * 2.1 + 524288 / (1000 * total_bw * ag_ratio), 1e-3);
  // Broadcast: LL rated x1.65 on one gfx94 node; one step latency (the model graph's sameChannels).
  const NcclChoice bcast = pick("mi300x.xml", ir::Collective::Broadcast, 65536);
  EXPECT_EQ(bcast.name(), "nccl:ring:LL");
  EXPECT_NEAR(bcast.model_us, 12 + 0.8 + 65536 / (1000 * total_bw * 0.08 * 1.65), 1e-3);
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::Broadcast, 262144).name(), "nccl:ring:LL");
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::Broadcast, 524288).name(), "nccl:ring:Simple");
  // No tree Simple on one gfx94 node; tree LL (ratio 0.06, x0.5) never beats ring LL here.
  EXPECT_THROW(pick("mi300x.xml", ir::Collective::AllReduce, 1 << 26, "nccl:tree:simple"), DiagError);
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::AllReduce, 1 << 26, "nccl:tree").proto, ir::Protocol::LL);
}

// Across nodes RCCL matches the MI300X node with a NIC per GPU as rome_model_81 (tuning 5 too) and runs
// no MSCCL algorithm: tuning_model_5's network terms decide (hwLat[NET] tree 10.5 / 25 us, ring 9.5 /
// 320 us per inter-node step, 2 x nodes such steps for a ring allreduce; ringCorrectionFactor scales a
// ring's bandwidth across nodes, treeCorrectionFactor a tree's; tree Simple allowed). Two nodes: tree LL
// to 2 MiB, tree Simple to 256 MiB, ring Simple above.
TEST(RcclMscclChoice, TuningModelAcrossMi300xNodes) {
  const std::string two_nodes = "../../tests/sim/nccl_mi300x_x2.xml";
  const double total_bw = 7 * 48.0;
  const NcclChoice small = pick(two_nodes, ir::Collective::AllReduce, 65536);
  EXPECT_EQ(small.name(), "nccl:tree:LL");
  EXPECT_NEAR(small.model_us, 12 + 2 * (7 * 0.9 + 10.5) + 65536 / (1000 * total_bw * 0.06 * 0.5), 1e-3);
  EXPECT_EQ(pick(two_nodes, ir::Collective::AllReduce, 2097152).name(), "nccl:tree:LL");
  const NcclChoice mid = pick(two_nodes, ir::Collective::AllReduce, 4194304);
  EXPECT_EQ(mid.name(), "nccl:tree:Simple");
  EXPECT_NEAR(mid.model_us, 17 + 2 * (7 * 2.3 + 25) + 4194304 / (1000 * total_bw * 0.11 * 0.5), 1e-3);
  EXPECT_EQ(pick(two_nodes, ir::Collective::AllReduce, ByteCount{256} << 20).name(), "nccl:tree:Simple");
  const ByteCount half_gib = ByteCount{512} << 20;
  const NcclChoice large = pick(two_nodes, ir::Collective::AllReduce, half_gib);
  EXPECT_EQ(large.name(), "nccl:ring:Simple");
  // 30 steps, 4 across the network; the other 26 cost the proxy's post (1 us x 3 for Simple) > 2.1 us.
  EXPECT_NEAR(large.model_us, 17 + 26 * 3.0 + 4 * 320 + half_gib / (1000 * total_bw * 16.0 / 30 * 0.8), 1e-2);
  // No all-pairs file across nodes.
  EXPECT_NE(pick(two_nodes, ir::Collective::AllReduce, 1048576).algo, NcclAlgo::AllPairs);
}

TEST(RcclMscclChoice, ExplicitRequestsAreHonoured) {
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::AllReduce, 1048576, "nccl:ring").algo, NcclAlgo::Ring);
  EXPECT_EQ(pick("mi300x.xml", ir::Collective::AllReduce, 1048576, "nccl:allpairs").algo, NcclAlgo::AllPairs);
  // A protocol the bundled algorithm for this size does not use: RCCL's tuning model with that protocol.
  const NcclChoice ll = nccl_choose(load("mi300x.xml"), ir::Collective::AllReduce, 1048576,
                                    NcclRequest{std::nullopt, ir::Protocol::LL}, SimParams{});
  EXPECT_EQ(ll.algo, NcclAlgo::Ring);
  EXPECT_EQ(ll.proto, ir::Protocol::LL);
  // RCCL compiles no LL128 kernel for gfx942 (ROCm/rccl @0cbce2a src/device/generate.py), so asking for it
  // is the one-line error, not a time.
  EXPECT_THROW(pick("mi300x.xml", ir::Collective::AllGather, 1048576, "nccl:ring:ll128"), DiagError);
  EXPECT_THROW(pick("ndv4.xml", ir::Collective::AllReduce, 1048576, "nccl:allpairs"), DiagError);
  EXPECT_THROW(pick("mi300x.xml", ir::Collective::AllReduce, ByteCount{1} << 30, "nccl:allpairs"), DiagError);
}

// Two phases, each moving every rank's 1/8 share over every xGMI link: the simulated time is at least
// the base plus twice a share over the link's 8 threadblocks, and grows with the size.
TEST(RcclMscclChoice, AllPairsSimpleMovesTwoSharesPerLink) {
  const SimParams params;
  const double tb = param_value(params, "sim.rccl.msccl.tb_bw.Simple.cdna3").value() * 1e9;
  const double base_us = param_value(params, "sim.rccl.msccl.base_us").value();
  double previous = 0;
  for (ByteCount bytes : {ByteCount{1} << 20, ByteCount{4} << 20, ByteCount{16} << 20}) {
    const SimResult r = simulate_nccl(load("mi300x.xml"), ir::Collective::AllReduce, {bytes, DataType::Float},
                                      NcclRequest{}, params);
    EXPECT_EQ(r.algorithm, "nccl:allpairs:Simple");
    const double floor_us = base_us + 2 * (static_cast<double>(bytes) / 8) / (8 * tb) * 1e6;
    EXPECT_GE(r.time.us(), floor_us) << bytes;
    EXPECT_LE(r.time.us(), 1.2 * floor_us + 10) << bytes;
    EXPECT_GT(r.time.us(), previous);
    previous = r.time.us();
  }
}


// An MSCCL file on AMD GPUs runs in RCCL's MSCCL kernel, so it pays RCCL's per-call base
// (sim.rccl.msccl.base_us) and not msccl-executor-nccl's (sim.msccl.base_us); on NVIDIA GPUs the reverse.
TEST(RcclMscclKernel, MscclFilesPayTheirRuntimesBase) {
  const ir::Algorithm algo = ir::read_msccl_xml(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/msccl/mt_allreduce_allpairs_8_i2_LL.xml");
  const CallSpec call{ByteCount{1} << 14, DataType::Float};
  for (const char* topology : {"mi300x.xml", "ndv5.xml"}) {
    const bool rccl = std::string(topology) == "mi300x.xml";
    const double before = simulate(load(topology), algo, call, SimParams{}).time.us();
    for (const char* name : {"sim.rccl.msccl.base_us", "sim.msccl.base_us"}) {
      SimParams raised;
      set_param(raised, name, param_value(raised, name).value() + 10, "test");
      const bool own = (std::string(name) == "sim.rccl.msccl.base_us") == rccl;
      EXPECT_NEAR(simulate(load(topology), algo, call, raised).time.us() - before, own ? 10.0 : 0.0, 1e-3) << topology << " " << name;
    }
  }
}

// The same for RCCL's fitted Simple threadblock rate: an MSCCL Simple file on MI300X moves its data at it.
TEST(RcclMscclKernel, SimpleFilesOnMi300xMoveAtRcclsThreadblockRate) {
  const ir::Algorithm algo = ir::read_msccl_xml(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/msccl/mt_allgather_ring_8_c2_Simple.xml");
  const CallSpec call{ByteCount{16} << 20, DataType::Float};
  const double before = simulate(load("mi300x.xml"), algo, call, SimParams{}).time.us();
  SimParams halved;
  set_param(halved, "sim.rccl.msccl.tb_bw.Simple.cdna3", param_value(halved, "sim.rccl.msccl.tb_bw.Simple.cdna3").value() / 2, "test");
  EXPECT_GT(simulate(load("mi300x.xml"), algo, call, halved).time.us(), 1.5 * before);
}

// msccl-tools' all-pairs allreduce (allreduce_a100_allpairs.py, 2 instances) is the algorithm of RCCL's
// bundled allreduce-allpairs-8n-ll-32tb (the same generator's "allreduce_pairs", 4 instances): run as an
// MSCCL file on MI300X it costs what the baseline's all-pairs lowering charges: the same kernel's base,
// threadblock rates and cross-threadblock handoffs.
TEST(RcclMscclKernel, AllPairsFileCostsTheBaselinesAllPairs) {
  const ir::Algorithm algo = ir::read_msccl_xml(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/msccl/mt_allreduce_allpairs_8_i2_LL.xml");
  for (ByteCount bytes : {ByteCount{1} << 10, ByteCount{4} << 10, ByteCount{16} << 10, ByteCount{64} << 10}) {
    const CallSpec call{bytes, DataType::Float};
    const double file = simulate(load("mi300x.xml"), algo, call, SimParams{}).time.us();
    const double baseline = simulate_nccl(load("mi300x.xml"), ir::Collective::AllReduce, call,
                                          *parse_nccl_request("nccl:allpairs:ll"), SimParams{}).time.us();
    EXPECT_NEAR(file / baseline, 1.0, kAllPairsTolerance) << bytes << ": file " << file << " us, baseline " << baseline << " us";
  }
}

}  // namespace
}  // namespace ccforge::sim
