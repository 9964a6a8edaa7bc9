// One size convention from generator to measurement: sizes are nccl-tests sizes (gather and scatter:
// the total over ranks), the executor cuts count x sizeof(T) x sizeMultiplier into nchunksperloop
// chunks (sizeMultiplier 1 for gather and scatter) and compares that nBytes with minBytes/maxBytes.
// Each test fails under the old convention (nchunksperloop = ngpus x per-rank chunks, bands and
// chunk sizes taken from the total).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/executor/executor.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "ccforge/validate/validate.hpp"
#include "source_dir.hpp"
#include "tune_written.hpp"

namespace ccforge {
namespace {

const std::filesystem::path kRoot(CCFORGE_SOURCE_DIR);
constexpr ByteCount kKiB = 1024, kMiB = 1024 * 1024;

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(kRoot / "data/topologies/ndv5.xml");
  return t;
}

ir::Algorithm direct(ir::Collective coll, int instances, ir::Protocol proto) {
  search::GenRequest req;
  req.collective = coll;
  req.ngpus = 8;
  req.protocol = proto;
  req.instances = instances;
  search::Generated g = search::try_generate(*search::find_generator("direct"), req);
  if (!g.algorithm) throw std::runtime_error(g.why_not);
  return *g.algorithm;
}

// A 64 MB gather moves 7/8 of 64 MB into the root: the simulated time is within 1.5x of the
// bandwidth bound. Chunks cut from the whole 64 MB (the old rule) would move 8x that.
TEST(SizeConventions, SimulatedGatherMovesTheNcclTestsSize) {
  const sim::SimParams params;
  for (ir::Collective coll : {ir::Collective::Gather, ir::Collective::Scatter}) {
    const ir::Algorithm algo = direct(coll, 8, ir::Protocol::Simple);
    const SimTime t = sim::simulate(ndv5(), algo, sim::CallSpec{64 * kMiB, DataType::Half}, params).time;
    const SimTime bound = search::lower_bound(ndv5(), coll, 64 * kMiB).total();
    EXPECT_GE(t, bound) << ir::to_string(coll);
    EXPECT_LE(t.us(), 1.5 * bound.us()) << ir::to_string(coll);
  }
}

// nchunksperloop 8 of half elements: the per-rank share (size / 8) must be a multiple of 16 B.
TEST(SizeConventions, SimulatorSplitsThePerRankShare) {
  const sim::SimParams params;
  const ir::Algorithm algo = direct(ir::Collective::Gather, 8, ir::Protocol::LL);
  const DataType half = DataType::Half;
  EXPECT_NO_THROW(sim::simulate(ndv5(), algo, sim::CallSpec{8 * 16, half}, params));
  EXPECT_THROW(sim::simulate(ndv5(), algo, sim::CallSpec{8 * 16 / 2, half}, params), DiagError);
}

// Tuned files carry the executor's nBytes; bands.csv keeps nccl-tests sizes; every candidate is written.
TEST(SizeConventions, TuneExportsExecutorBytesForGatherBands) {
  const auto dir = std::filesystem::temp_directory_path() / "ccforge_size_conventions_tune";
  std::filesystem::remove_all(dir);
  search::TuneOptions options;
  options.collectives = {ir::Collective::Gather, ir::Collective::AllGather};
  options.sizes = {32 * kKiB, 64 * kKiB, 128 * kKiB};
  options.min_gain = 0.0;
  options.jobs = 1;
  options.out_dir = dir;
  options.write_candidates = true;
  // Gather files are rooted and msccl-executor-nccl has no gather entry point: export them for RCCL.
  options.runtime = ir::Runtime::Rccl;
  options.export_rooted = true;
  const search::TuneResult r = search::tune_and_write(ndv5(), options, sim::SimParams{});
  int gather_files = 0;
  for (const search::CollectiveTune& ct : r.collectives) {
    const ByteCount per_rank = ct.collective == ir::Collective::Gather ? 8 : 1;
    for (const search::Band& b : ct.bands) {
      if (b.winner < 0) continue;
      const ir::Algorithm exported = ir::read_msccl_xml(dir / b.file);
      EXPECT_EQ(exported.min_bytes, b.min_bytes / per_rank) << b.file;
      EXPECT_EQ(exported.max_bytes, b.max_bytes / per_rank) << b.file;
      EXPECT_TRUE(ir::check(exported).ok()) << b.file;
      gather_files += ct.collective == ir::Collective::Gather;
    }
    std::size_t written = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "candidates"))
      written += entry.path().filename().string().starts_with(std::string(ir::to_string(ct.collective)) + "_");
    EXPECT_EQ(written, ct.candidates.accepted.size()) << ir::to_string(ct.collective);
  }
  // (Below 32 KB NCCL's gather runs its sends in LL, p2p.cpp, and keeps the band.)
  EXPECT_GT(gather_files, 0) << "direct gather beats simulated NCCL at 32-128 KB on NDv5 (1.6-2.5x)";
  const std::string bands = read_file(dir / "bands.csv");
  EXPECT_NE(bands.find("\ngather,32768,"), std::string::npos) << bands;
  std::filesystem::remove_all(dir);
}

// validate runs a gather file with band [128, 255] (nBytes) at nccl-tests size 1 KB (8 x 128 B) only,
// with count 64 halves per rank, and gets every element right.
TEST(SizeConventions, ValidateComparesTheExecutorsBytesWithTheBand) {
  ir::Algorithm algo = direct(ir::Collective::Gather, 1, ir::Protocol::LL);
  algo.min_bytes = 128;
  algo.max_bytes = 255;
  const validate::Candidate c{algo, "gather_band.xml"};
  validate::SweepOptions o;
  o.sizes = size_sweep(512, 4 * kKiB, 2);
  o.iterations = 1;
  o.warmup = 0;
  auto backend = executor::make_host_backend(executor::ExecOptions{});
  const validate::SweepResult r = validate::run_sweep(*backend, {c}, o);
  int runs = 0;
  for (const validate::Measurement& m : r.runs) {
    if (m.algorithm == "NCCL") continue;
    ++runs;
    EXPECT_EQ(m.size_bytes, kKiB);
    EXPECT_EQ(m.count, 64u);
    EXPECT_EQ(m.wrong, 0) << m.error;
  }
  EXPECT_EQ(runs, 1);  // in place only (the direct generator writes in-place files)
  EXPECT_TRUE(r.broken.empty());
}

}  // namespace
}  // namespace ccforge
