// The run's conditions as inputs: NCCL_* variables in NCCL's own syntax narrow NCCL's choice and set its
// channel count as NCCL does, and nccl-tests' -g launch mode makes small calls cost the host's launches.
#include <gtest/gtest.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5.xml");
  return t;
}

SimParams with_env(std::initializer_list<const char*> assignments) {
  SimParams p;
  for (const char* a : assignments) apply_nccl_env(a, p.nccl, "--env");
  return p;
}

constexpr int kTree = 0, kRing = 1, kNvls = 4, kLL = 0, kLL128 = 1, kSimple = 2;

TEST(NcclEnv, AlgoListsFollowNcclsSyntax) {
  const SimParams ring = with_env({"NCCL_ALGO=ring"});
  EXPECT_TRUE(ring.nccl.algorithms->allows(ir::Collective::AllReduce, kRing));
  EXPECT_FALSE(ring.nccl.algorithms->allows(ir::Collective::AllReduce, kNvls));
  const SimParams all_but_nvls = with_env({"NCCL_ALGO=^NVLS,NVLSTree"});
  EXPECT_TRUE(all_but_nvls.nccl.algorithms->allows(ir::Collective::AllGather, kRing));
  EXPECT_FALSE(all_but_nvls.nccl.algorithms->allows(ir::Collective::AllGather, kNvls));
  // NCCL 2.24+: a default list, then per-function lists.
  const SimParams per_function = with_env({"NCCL_ALGO=Ring;allreduce:Tree"});
  EXPECT_TRUE(per_function.nccl.algorithms->allows(ir::Collective::AllGather, kRing));
  EXPECT_FALSE(per_function.nccl.algorithms->allows(ir::Collective::AllReduce, kRing));
  EXPECT_TRUE(per_function.nccl.algorithms->allows(ir::Collective::AllReduce, kTree));
  // Send/recv-based collectives are not NCCL_ALGO's business.
  EXPECT_TRUE(per_function.nccl.algorithms->allows(ir::Collective::AllToAll, kNvls));
  const SimParams proto = with_env({"NCCL_PROTO=^LL128"});
  EXPECT_TRUE(proto.nccl.protocols->allows(ir::Collective::AllReduce, kLL));
  EXPECT_FALSE(proto.nccl.protocols->allows(ir::Collective::AllReduce, kLL128));
  EXPECT_TRUE(proto.nccl.protocols->allows(ir::Collective::AllReduce, kSimple));
}

TEST(NcclEnv, ValuesNcclWouldRejectAreErrors) {
  NcclSettings s;
  EXPECT_THROW(apply_nccl_env("NCCL_ALGO=Rings", s, "--env"), DiagError);
  EXPECT_THROW(apply_nccl_env("NCCL_ALGO=ring;tree", s, "--env"), DiagError);  // second entry lacks a prefix
  EXPECT_THROW(apply_nccl_env("NCCL_ALGO=allgatherx:ring", s, "--env"), DiagError);
  EXPECT_THROW(apply_nccl_env("NCCL_MIN_NCHANNELS=-1", s, "--env"), DiagError);
  EXPECT_THROW(apply_nccl_env("NCCL_MAX_NCHANNELS=many", s, "--env"), DiagError);
  EXPECT_THROW(apply_nccl_env("NCCL_NET_GDR_LEVEL=FAR", s, "--env"), DiagError);
  EXPECT_THROW(apply_nccl_env("NCCL_ALGO", s, "--env"), DiagError);
  EXPECT_EQ(apply_nccl_env("NCCL_NET_GDR_LEVEL=PIX", s, "--env"), EnvUse::NotModelled);
  EXPECT_EQ(apply_nccl_env("NCCL_IB_QPS_PER_CONNECTION=0x4", s, "--env"), EnvUse::NotModelled);
  EXPECT_EQ(s.ib_qps_per_connection, 4);
  EXPECT_EQ(apply_nccl_env("NCCL_COLLNET_ENABLE=1", s, "--env"), EnvUse::NotModelled);
  EXPECT_THROW(apply_nccl_env("NCCL_COLLNET_ENABLE=yes", s, "--env"), DiagError);
  EXPECT_EQ(apply_nccl_env("NCCL_DEBUG=INFO", s, "--env"), EnvUse::Unknown);
}

TEST(NcclEnv, ChannelBoundsAsNcclAppliesThem) {
  NcclSettings s;
  EXPECT_EQ(nccl_channels(24, s, 32), 24);
  s.min_channels = 32;
  EXPECT_EQ(nccl_channels(24, s, 32), 32);  // copied up to the minimum
  s.min_channels = 64;
  EXPECT_EQ(nccl_channels(24, s, 32), 32);  // never past MAXCHANNELS
  s = NcclSettings{};
  s.max_ctas = 8;
  EXPECT_EQ(nccl_channels(24, s, 64), 8);
}

TEST(NcclEnv, SettingsNarrowNcclsChoice) {
  const ByteCount big = ByteCount{64} << 20;
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, {}, SimParams{}).algo, NcclAlgo::Nvls);
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, {}, with_env({"NCCL_ALGO=Ring"})).algo, NcclAlgo::Ring);
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, {}, with_env({"NCCL_NVLS_ENABLE=0"})).algo, NcclAlgo::Ring);
  const NcclChoice simple = nccl_choose(ndv5(), ir::Collective::AllReduce, 4096, {}, with_env({"NCCL_ALGO=Ring", "NCCL_PROTO=Simple"}));
  EXPECT_EQ(simple.proto, ir::Protocol::Simple);
  const NcclChoice capped = nccl_choose(ndv5(), ir::Collective::AllReduce, big, {}, with_env({"NCCL_ALGO=Ring", "NCCL_MAX_NCHANNELS=8"}));
  EXPECT_EQ(capped.nchannels, 8);
  EXPECT_THROW(nccl_choose(ndv5(), ir::Collective::AllGather, big, {}, with_env({"NCCL_ALGO=Tree"})), DiagError);
}

TEST(NcclEnv, DefaultChannelsAreNcclsOwnSearch) {
  // Nothing set: NCCL's own 24 on H100 NVSwitch; Azure's NCCL_MIN_NCHANNELS=32 raises it; a positive
  // sim.nccl.nchannels replaces the searched count, still under the run's bounds.
  const ByteCount big = ByteCount{1} << 30;
  const NcclRequest ring{NcclAlgo::Ring, ir::Protocol::Simple};
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, ring, SimParams{}).nchannels, 24);
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, ring, with_env({"NCCL_MIN_NCHANNELS=32"})).nchannels, 32);
  SimParams given = with_env({"NCCL_MAX_NCHANNELS=10"});
  set_param(given, "sim.nccl.nchannels", 12, "test");
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, ring, given).nchannels, 10);
  given.nccl.max_channels.reset();
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, big, ring, given).nchannels, 12);
}

TEST(LaunchMode, OneThreadDrivingEightGpusIsHostBoundAtSmallSizes) {
  SimParams mpi;
  SimParams one_thread;
  one_thread.launch.gpus_per_thread = 8;
  const double host_us = 8 * param_value(one_thread, "sim.launch.host_per_gpu_us").value();
  const CallSpec small{1024, DataType::Float};
  const double device_us = simulate_nccl(ndv5(), ir::Collective::AllReduce, small, {}, mpi).time.us();
  ASSERT_LT(device_us, host_us);
  EXPECT_DOUBLE_EQ(simulate_nccl(ndv5(), ir::Collective::AllReduce, small, {}, one_thread).time.us(), host_us);
  // Where the GPUs take longer than the launches, the launch mode changes nothing.
  const CallSpec large{ByteCount{256} << 20, DataType::Float};
  EXPECT_EQ(simulate_nccl(ndv5(), ir::Collective::AllReduce, large, {}, one_thread).time,
            simulate_nccl(ndv5(), ir::Collective::AllReduce, large, {}, mpi).time);
}

TEST(NcclVersionFlag, ParsesWhatNcclPrints) {
  EXPECT_EQ(parse_nccl_version("2.26.2", "--nccl-version"), (NcclVersion{2, 26}));
  EXPECT_EQ(parse_nccl_version("2.18", "--nccl-version"), (NcclVersion{2, 18}));
  EXPECT_EQ(parse_nccl_version("2.3.7", "--nccl-version"), (NcclVersion{2, 3}));
  EXPECT_DOUBLE_EQ(nccl_version_number({2, 3}), 2.03);  // as profiles write it
  EXPECT_EQ(nccl_version_of(2.03), (NcclVersion{2, 3}));
  EXPECT_THROW(parse_nccl_version("2", "--nccl-version"), DiagError);
  EXPECT_THROW(parse_nccl_version("v2.26", "--nccl-version"), DiagError);
}

}  // namespace
}  // namespace ccforge::sim
