// Every bundled topology, tuned in full (1 KB - 1 GB, every collective, rooted ones exported too):
// every file it exports passes the checker and the rules of the runtime that will load it on that
// machine's GPUs (threadblocks per rank, residency, depid, offsets, parser nodes, entry points).
#include <gtest/gtest.h>

#include <filesystem>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"
#include "tune_written.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;

class ExportedFiles : public ::testing::TestWithParam<const char*> {};

TEST_P(ExportedFiles, FitTheRuntimeThatLoadsThem) {
  const topo::Topology topo = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + GetParam() + ".xml");
  const fs::path dir = fs::temp_directory_path() / (std::string("ccforge_exported_") + GetParam() + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  TuneOptions o;
  o.collectives = {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::ReduceScatter, ir::Collective::AllToAll,
                   ir::Collective::Broadcast, ir::Collective::Reduce,    ir::Collective::Gather,        ir::Collective::Scatter};
  for (ByteCount b = 1024; b <= (ByteCount{1} << 30); b *= 2) o.sizes.push_back(b);
  o.out_dir = dir;
  o.export_rooted = true;
  o.nccl_space = false;  // nccl-tuner.conf is not an MSCCL file
  const TuneResult r = tune_and_write(topo, o, sim::SimParams{});
  const ir::RuntimeTarget& runtime = ir::runtime_target(r.target.runtime);
  std::size_t files = 0;
  for (const char* folder : {"algorithms", "algorithms-rooted"}) {
    if (!fs::exists(dir / folder)) continue;
    for (const auto& e : fs::directory_iterator(dir / folder)) {
      const ir::Algorithm algo = ir::read_msccl_xml(e.path());
      const ir::CheckReport report = ir::check(algo, runtime, r.target.multiprocessors);
      EXPECT_TRUE(report.ok()) << e.path() << ": [" << report.issues.front().rule << "] " << report.issues.front().message;
      ++files;
    }
  }
  EXPECT_GT(files, 0u);
  std::cout << GetParam() << ": " << files << " files fit " << runtime.name << " on " << r.target.multiprocessors << " SMs/CUs\n";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Bundled, ExportedFiles,
                         ::testing::Values("ndv5", "ndv4", "ndv4-degraded", "dgx-h100", "dgx1-v100", "mi300x", "pcie-4gpu",
                                           "ndv5-x2", "ndv5-x16"));

}  // namespace
}  // namespace ccforge::search
