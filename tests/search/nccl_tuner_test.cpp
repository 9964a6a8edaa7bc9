// Tuning inside NCCL's own space: band merging from explanations, pruning that keeps every decision of
// the unpruned search, the rules nccl-tuner.conf gets, and the tune's outputs (conf, selection.md,
// report.json) on ndv5-x2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"
#include "tune_written.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;

const topo::Topology& ndv5_x2() {
  static const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x2.xml");
  return t;
}
DataType half() { return DataType::Half; }

sim::NcclPointTime point(sim::NcclAlgo algo, ir::Protocol proto, int channels, double us, bool own = true) {
  return {{algo, proto, channels, 0.0}, SimTime::from_us(us), own, false};
}
// NCCL's pick (ring Simple, 100 us) and one alternative.
sim::NcclExplanation size(ByteCount bytes, sim::NcclPointTime alternative) {
  sim::NcclExplanation e{bytes, {point(sim::NcclAlgo::Ring, ir::Protocol::Simple, 8, 100.0), alternative}, 0};
  if (alternative.time < e.points[0].time) e.best = 1;
  return e;
}

TEST(NcclTunerBands, MergeEqualOverridesAndLeaveTheRestToNccl) {
  using sim::NcclAlgo;
  const std::vector<sim::NcclExplanation> sizes{
      size(1024, point(NcclAlgo::Tree, ir::Protocol::LL, 4, 50.0)),         // 100 % gain
      size(2048, point(NcclAlgo::Tree, ir::Protocol::LL, 6, 80.0)),         // same, NCCL's own count grows
      size(4096, point(NcclAlgo::Tree, ir::Protocol::LL, 32, 90.0, false)), // other channels: new band
      size(8192, point(NcclAlgo::Tree, ir::Protocol::LL, 32, 98.0, false)), // 2 % < min_gain: NCCL
      size(16384, point(NcclAlgo::Tree, ir::Protocol::LL, 32, 90.0, false)), // again, but not adjacent
  };
  const std::vector<NcclTunerBand> bands = nccl_tuner_bands(sizes, 0.03);
  ASSERT_EQ(bands.size(), 3u);
  EXPECT_EQ(bands[0].min_bytes, 1024u);
  EXPECT_EQ(bands[0].max_bytes, 4095u);
  EXPECT_TRUE(bands[0].default_channels);
  EXPECT_DOUBLE_EQ(bands[0].max_gain, 1.0);
  EXPECT_DOUBLE_EQ(bands[0].min_gain, 0.25);
  EXPECT_EQ(bands[1].min_bytes, 4096u);
  EXPECT_EQ(bands[1].max_bytes, 8191u);
  EXPECT_FALSE(bands[1].default_channels);
  EXPECT_EQ(bands[1].point.nchannels, 32);
  EXPECT_EQ(bands[2].min_bytes, 16384u);
  EXPECT_EQ(bands[2].max_bytes, 16384u);  // the last tuned size ends the last band
}

TEST(NcclTunerBands, NoBandWhereNcclsPickIsFastest) {
  EXPECT_TRUE(nccl_tuner_bands({size(1024, point(sim::NcclAlgo::Tree, ir::Protocol::LL, 4, 120.0))}, 0.03).empty());
  EXPECT_TRUE(nccl_tuner_bands({sim::NcclExplanation{1024, {}, 0}}, 0.03).empty());  // alltoall: no points
}

TEST(NcclSpaceTune, PruningKeepsEveryDecisionOfTheFullSearch) {
  std::vector<ByteCount> sizes;  // the tune's default steps (factor 2), 1 KB-128 MB
  for (ByteCount b = 1 << 10; b <= (128 << 20); b *= 2) sizes.push_back(b);
  for (ir::Collective coll : {ir::Collective::AllReduce, ir::Collective::AllGather}) {
    const NcclSpaceTune pruned = tune_nccl_space(ndv5_x2(), coll, sizes, half(), sim::SimParams{}, 0.03);
    std::vector<sim::NcclExplanation> full;
    for (ByteCount b : sizes) full.push_back(sim::explain_nccl(ndv5_x2(), coll, {b, half()}, sim::SimParams{}));
    ASSERT_EQ(pruned.sizes.size(), full.size());
    std::size_t skipped = 0;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      EXPECT_EQ(pruned.sizes[s].best, full[s].best) << sizes[s];
      EXPECT_EQ(pruned.sizes[s].fastest().time, full[s].fastest().time) << sizes[s];
      for (std::size_t i = 0; i < full[s].points.size(); ++i) {
        const sim::NcclPointTime& p = pruned.sizes[s].points[i];
        if (!p.pruned) EXPECT_EQ(p.time, full[s].points[i].time);
        // A floor: the point's time at a smaller size (the sim rounds to 16 ps, within 1 ns).
        else EXPECT_LE(p.time, full[s].points[i].time + SimTime::from_ns(1)) << sizes[s];
        skipped += p.pruned;
      }
    }
    EXPECT_GT(skipped, 0u) << "large sizes prune LL points";
    EXPECT_EQ(pruned.bands.size(), nccl_tuner_bands(full, 0.03).size());
  }
}

TEST(NcclTunerOutputs, TuneWritesTheTableItsPluginReads) {
  const fs::path dir = fs::temp_directory_path() / ("ccforge_nccl_tuner_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  TuneOptions o;
  o.collectives = {ir::Collective::AllReduce, ir::Collective::AllToAll};
  o.sizes = {256 << 10, 512 << 10, 1 << 20};
  o.out_dir = dir;
  const TuneResult r = tune_and_write(ndv5_x2(), o, sim::SimParams{});
  EXPECT_EQ(r.nodes, 2);
  EXPECT_EQ(r.ranks_per_node, 8);
  const tuner_conf::ParseResult table = tuner_conf::parse_table(read_file(dir / "nccl-tuner.conf"));
  ASSERT_TRUE(table.ok()) << table.error;
  const std::vector<tuner_conf::Rule> rules = nccl_tuner_rules(r);
  ASSERT_EQ(table.rules.size(), rules.size());
  ASSERT_FALSE(rules.empty()) << "NCCL's pick loses at 512 KB on ndv5-x2";
  const tuner_conf::Rule* at_512k = tuner_conf::match(table.rules, CCF_NCCL_FUNC_ALLREDUCE, 512 << 10, 2, 8);
  ASSERT_NE(at_512k, nullptr);
  const sim::NcclPointTime& best = r.collectives[0].nccl_space.sizes[1].fastest();
  EXPECT_EQ(tuner_conf::word(tuner_conf::kAlgoNames[at_512k->algo]), sim::to_string(best.point.algo));
  EXPECT_EQ(at_512k->channels, best.default_channels ? 0 : best.point.nchannels);
  EXPECT_NE(read_file(dir / "selection.md").find("# NCCL's own space (nccl-tuner.conf)"), std::string::npos);
  const auto report = nlohmann::json::parse(read_file(dir / "report.json"));
  const auto& space = report["collectives"][0]["nccl_space"];
  EXPECT_EQ(space["sizes"].size(), 3u);
  EXPECT_EQ(space["sizes"][1]["override"], true);
  EXPECT_EQ(space["bands"].size(), r.collectives[0].nccl_space.bands.size());
  EXPECT_TRUE(report["collectives"][1]["nccl_space"]["sizes"].empty());  // alltoall: nothing for a tuner
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ccforge::search
