// NCCL's tuning tables per version: constants checked against the values at each NVIDIA/nccl tag, the
// version lookup, and NCCL's choice changing exactly where the versions' models differ.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim {
namespace {

using nccl::kHwNet;
using nccl::kHwNvlink;
using nccl::kSimple;
using nccl::tuning_tables_for;

constexpr int kHopper = 2, kBlackwell = 3;

const topo::Topology& load(const std::string& path) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/" + path)).first;
  return it->second;
}
const topo::Topology& ndv5() { return load("data/topologies/ndv5.xml"); }
const topo::Topology& ndv5_x2() { return load("data/topologies/ndv5-x2.xml"); }
const topo::Topology& one_gpu_x8() { return load("tests/sim/nccl_h100_1gpu_x8.xml"); }

SimParams version(double v) {
  SimParams p;
  set_param(p, "sim.nccl.version", v, "test");
  return p;
}

NcclChoice choose(const topo::Topology& t, ir::Collective coll, ByteCount bytes, double v, const char* forced = "nccl") {
  return nccl_choose(t, coll, bytes, *parse_nccl_request(forced), version(v));
}

std::string chosen(const topo::Topology& t, ir::Collective coll, ByteCount bytes, double v) {
  return choose(t, coll, bytes, v).name();
}

TEST(NcclVersions, ConstantsAreTheTagsValues) {
  // Each line: a value read in src/graph/tuning.cc or topo.h at the tag named.
  const nccl::TuningConstants& v218 = *tuning_tables_for(nccl_version_of(2.18));  // v2.18.3-1
  EXPECT_EQ(v218.hw_lat[kHwNvlink][nccl::kTree][kSimple], 4.0);
  EXPECT_EQ(v218.ll_max_bw[kHopper][0], 87.7);
  EXPECT_EQ(v218.base_lat[nccl::kNvls][kSimple], 23.0);
  EXPECT_EQ(v218.nvlink_bw_per_link[kHopper], 20.0);
  EXPECT_FALSE(v218.nvls_all_gather);
  EXPECT_EQ(v218.pat_bw_factor, 0.0);

  const nccl::TuningConstants& v221 = *tuning_tables_for(nccl_version_of(2.21));  // v2.21.5-1
  EXPECT_EQ(v221.hw_lat[kHwNvlink][nccl::kTree][kSimple], 28.0);
  EXPECT_EQ(v221.hw_lat[kHwNvlink][nccl::kNvls][kSimple], 25.0);
  EXPECT_EQ(v221.hw_lat[kHwNet][nccl::kNvlsTree][kSimple], 14.0);
  EXPECT_EQ(v221.base_lat[nccl::kNvls][kSimple], 0.0);
  EXPECT_EQ(v221.ll_max_bw[kHopper][0], 141.0);
  EXPECT_EQ(v221.nvlink_bw_per_link[kHopper], 20.6);
  EXPECT_TRUE(v221.nvls_all_gather);
  EXPECT_EQ(v221.pat_bw_factor, 0.0);
  EXPECT_EQ(tuning_tables_for(nccl_version_of(2.22)), &v221);  // v2.22.3-1: same numbers and formulas

  const nccl::TuningConstants& v223 = *tuning_tables_for(nccl_version_of(2.23));  // v2.23.4-1
  EXPECT_EQ(v223.hw_lat[kHwNvlink][nccl::kTree][kSimple], 4.0);
  EXPECT_EQ(v223.hw_lat[kHwNet][nccl::kTree][kSimple], 14.0);
  EXPECT_EQ(v223.base_lat[nccl::kTree][kSimple], 8.4);
  EXPECT_EQ(v223.pat_bw_factor, 0.85);
  EXPECT_EQ(v223.ll_max_bw[kBlackwell][0], 141.0);  // no Blackwell row yet

  const nccl::TuningConstants& v226 = *tuning_tables_for(nccl_version_of(2.26));  // v2.26.6-1
  EXPECT_EQ(v226.ll_max_bw[kBlackwell][0], 282.0);
  EXPECT_EQ(v226.per_ch_max_tree_bw[kBlackwell][1], 2 * 41.4);
  EXPECT_EQ(v226.nvlink_bw_per_link[kBlackwell], 40.0);
  EXPECT_EQ(v226.pat_bw_factor, 0.75);

  const nccl::TuningConstants& v227 = *tuning_tables_for(nccl_version_of(2.27));  // v2.27.7-1
  EXPECT_EQ(v227.nvlink_bw_per_link[kBlackwell], 40.1);
  EXPECT_EQ(v227.nvls_model, nccl::NvlsModel::kGatherCapped);

  const nccl::TuningConstants& v228 = *tuning_tables_for(nccl_version_of(2.28));  // v2.28.9-1
  EXPECT_EQ(v228.hw_lat[kHwNet][nccl::kNvlsTree][kSimple], 20.9);
  EXPECT_EQ(v228.nvls_efficiency[kHopper], 0.85);
  EXPECT_EQ(v228.per_ch_max_ring_ll128_bw[kBlackwell][1], 34.6);
}

TEST(NcclVersions, PatchReleasesMapToTheirMinorAndOthersAreRefused) {
  EXPECT_EQ(tuning_tables_for(parse_nccl_version("2.26.6", "test")), tuning_tables_for({2, 26}));
  for (const NcclVersion missing : {NcclVersion{2, 17}, NcclVersion{2, 19}, NcclVersion{2, 20}, NcclVersion{2, 24},
                                    NcclVersion{2, 25}, NcclVersion{2, 29}, NcclVersion{3, 18}}) {
    EXPECT_EQ(tuning_tables_for(missing), nullptr) << missing.major << "." << missing.minor;
  }
  try {
    chosen(ndv5(), ir::Collective::AllReduce, 1024, 2.24);
    FAIL() << "2.24 is not carried";
  } catch (const DiagError& e) {
    EXPECT_NE(std::string(e.what()).find("no NCCL tuning tables for version 2.24"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2.18, 2.21, 2.22, 2.23, 2.26, 2.27, 2.28"), std::string::npos) << e.what();
  }
}

TEST(NcclVersions, NvlsAllgatherExistsFrom219AndItsModelDecidesWhetherItWins) {
  const auto ag = ir::Collective::AllGather;
  EXPECT_THROW(choose(ndv5(), ag, 4u << 20, 2.18, "nccl:nvls"), DiagError);
  for (double v : {2.21, 2.22, 2.23, 2.26, 2.27, 2.28}) EXPECT_NO_THROW(choose(ndv5(), ag, 4u << 20, v, "nccl:nvls")) << v;
  // On one H100 node the NVLS graph is 8 channels x 40 GB/s = 320 GB/s (NcclDefaultChannels), below the
  // ring's 360: 2.21-2.22 discount NVLS allgather by 5/6 further, 2.23-2.26 keep 320 whole, 2.27 caps
  // it at x 7/8, 2.28 at x 0.85 x 7/8 x 7/8. At no size from 1 KB to 1 GB does NVLS win (ring LL, LL128,
  // Simple), as the Together H100 run shows: its NVLS-enabled allgather times are the ring-forced ones
  // (tests/data/nccl-tests/h100_8gpu_1node_allgather_{ring,nvls}.log).
  EXPECT_EQ(chosen(ndv5(), ag, 4u << 20, 2.18), "nccl:ring:LL128");
  for (double v : {2.22, 2.23, 2.26, 2.27, 2.28}) {
    for (std::size_t bytes = 1024; bytes <= (1u << 30); bytes *= 2)
      EXPECT_NE(chosen(ndv5(), ag, bytes, v), "nccl:nvls:Simple") << v << " " << bytes;
  }
  // The 2.23 and 2.26 NVLS estimates are one model (latency 25 us + bytes / 320 GB/s): equal.
  const double nvls_us = 25.0 + static_cast<double>(4u << 20) / (1000.0 * 320.0);
  EXPECT_NEAR(choose(ndv5(), ag, 4u << 20, 2.23, "nccl:nvls").model_us, nvls_us, 1e-6);
  EXPECT_EQ(choose(ndv5(), ag, 4u << 20, 2.23, "nccl:nvls").model_us, choose(ndv5(), ag, 4u << 20, 2.26, "nccl:nvls").model_us);
}

TEST(NcclVersions, PatFrom223OnOneGpuPerNodeOnly) {
  const auto ag = ir::Collective::AllGather;
  EXPECT_EQ(chosen(one_gpu_x8(), ag, 64u << 10, 2.22), "nccl:ring:LL");
  for (double v : {2.23, 2.26, 2.27, 2.28}) EXPECT_EQ(chosen(one_gpu_x8(), ag, 64u << 10, v), "nccl:pat:Simple") << v;
  EXPECT_THROW(choose(one_gpu_x8(), ag, 64u << 10, 2.22, "nccl:pat"), DiagError);
  for (double v : {2.23, 2.28}) EXPECT_THROW(choose(ndv5_x2(), ag, 64u << 10, v, "nccl:pat"), DiagError) << v;
  // 2.23 discounts PAT's bus bandwidth by .85, 2.26 by .75, at one latency (8 + log2(8) x 14 / 3.5 +
  // 8 x 2.8 us): the transfer terms differ by .85/.75, and at 4 MB that hands the call to ring LL128.
  const double latency = 8.0 + 3 * 14.0 / 3.5 + 8 * 2.8;
  const double t223 = choose(one_gpu_x8(), ag, 64u << 20, 2.23, "nccl:pat").model_us - latency;
  const double t226 = choose(one_gpu_x8(), ag, 64u << 20, 2.26, "nccl:pat").model_us - latency;
  EXPECT_NEAR(t226 / t223, 0.85 / 0.75, 1e-9);
  EXPECT_EQ(chosen(one_gpu_x8(), ag, 4u << 20, 2.23), "nccl:pat:Simple");
  EXPECT_EQ(chosen(one_gpu_x8(), ag, 4u << 20, 2.26), "nccl:ring:LL128");
}

TEST(NcclVersions, RingAndTreeTermsChangeAt221And223) {
  const auto ar = ir::Collective::AllReduce;
  // 64 KB allreduce over 8 nodes of one GPU: 2.21-2.22 halve ring LL (not a quarter, as 2.18) and charge
  // Tree/Simple 28 us per hop, so ring LL wins; 2.18 and 2.23+ pick tree LL.
  EXPECT_EQ(chosen(one_gpu_x8(), ar, 64u << 10, 2.18), "nccl:tree:LL");
  EXPECT_EQ(chosen(one_gpu_x8(), ar, 64u << 10, 2.21), "nccl:ring:LL");
  EXPECT_EQ(chosen(one_gpu_x8(), ar, 64u << 10, 2.23), "nccl:tree:LL");
  // 2.23 charges Tree's NET latency (LL 5.0 instead of ring's 2.7 us) on each of the 7 network steps
  // when every GPU sits alone in its node.
  const auto ag = ir::Collective::AllGather;
  EXPECT_NEAR(choose(one_gpu_x8(), ag, 1024, 2.23, "nccl:ring:ll").model_us -
                  choose(one_gpu_x8(), ag, 1024, 2.22, "nccl:ring:ll").model_us,
              7 * (5.0 - 2.7), 1e-6);
}

TEST(NcclVersions, NvlsTreeModelPerGeneration) {
  const auto ar = ir::Collective::AllReduce;
  const ByteCount n = 32u << 20;
  const double t218 = choose(ndv5_x2(), ar, n, 2.18, "nccl:nvlstree").model_us;
  const double t221 = choose(ndv5_x2(), ar, n, 2.21, "nccl:nvlstree").model_us;
  const double t228 = choose(ndv5_x2(), ar, n, 2.28, "nccl:nvlstree").model_us;
  // 2.19-2.27 share one NVLSTree model (ratio 5/6 instead of 2.18's 0.7 x 2/2 = 0.7, log2 latency).
  for (double v : {2.22, 2.23, 2.26, 2.27}) EXPECT_EQ(choose(ndv5_x2(), ar, n, v, "nccl:nvlstree").model_us, t221) << v;
  EXPECT_LT(t221, t218);
  EXPECT_NE(t228, t221);
  for (double v : {2.18, 2.21, 2.28}) EXPECT_EQ(chosen(ndv5_x2(), ar, n, v), "nccl:nvlstree:Simple") << v;
}

}  // namespace
}  // namespace ccforge::sim
