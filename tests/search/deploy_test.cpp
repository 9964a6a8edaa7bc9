// Deployment safety of a tune's output directory: files fit the runtime that loads them (RCCL's 64
// threadblocks on MI300X), rooted and unscheduled collectives stay out of algorithms/, out-of-place
// variants are proven, DEPLOY.md and env.sh say how to run them, and the directory is replaced as a
// whole without dropping collectives a re-tune does not cover.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/output_path.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"
#include "tune_written.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using C = ir::Collective;

const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name + ".xml")).first;
  return it->second;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ccforge_deploy_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TuneOptions options(const fs::path& dir, std::vector<C> colls, std::vector<ByteCount> sizes = {1024, 65536, 4 << 20}) {
  TuneOptions o;
  o.collectives = std::move(colls);
  o.sizes = std::move(sizes);
  o.jobs = 2;
  o.out_dir = dir;
  return o;
}

std::string run(const std::string& command) {
  std::array<char, 256> buf{};
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  while (pipe && std::fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  return out;
}

TEST(Deploy, AmdGpusGetRcclAndItsSixtyFourThreadblocks) {
  const DeployTarget mi300x = deploy_target(load("mi300x"));
  EXPECT_EQ(mi300x.runtime, ir::Runtime::Rccl);
  EXPECT_EQ(mi300x.multiprocessors, 304);
  const DeployTarget ndv5 = deploy_target(load("ndv5"));
  EXPECT_EQ(ndv5.runtime, ir::Runtime::MscclNccl);
  EXPECT_EQ(ndv5.multiprocessors, 132);
  EXPECT_EQ(deploy_target(load("ndv5"), ir::Runtime::Rccl).runtime, ir::Runtime::Rccl);

  const CandidateSet set = enumerate_candidates(load("mi300x"), C::AllReduce);
  for (const Candidate& c : set.accepted) {
    for (const ir::GpuProgram& g : c.algorithm.gpus) ASSERT_LE(g.tbs.size(), 64u) << c.name;
    EXPECT_NE(c.algorithm.protocol, ir::Protocol::LL128) << c.name << ": RCCL runs LL128 only on gfx90a";
  }
  const auto ll128 = std::find_if(set.rejected.begin(), set.rejected.end(),
                                  [](const Rejection& r) { return r.reason.find("runtime.protocol") != std::string::npos; });
  ASSERT_NE(ll128, set.rejected.end());
  EXPECT_THAT(ll128->name, ::testing::EndsWith("_LL128"));
  const auto unfit = std::find_if(set.rejected.begin(), set.rejected.end(),
                                  [](const Rejection& r) { return r.reason.find("runtime.tbs") != std::string::npos; });
  ASSERT_NE(unfit, set.rejected.end()) << "the 8-lane direct allreduces need 88 threadblocks";
  EXPECT_THAT(unfit->reason, HasSubstr("runtime rccl: runtime.tbs: 88 threadblocks"));
}

TEST(Deploy, RootedCollectivesAreExportedOnlyOnRequestAndGatherNeverForMscclNccl) {
  const fs::path dir = fresh_dir("rooted");
  TuneOptions o = options(dir, {C::Broadcast, C::Gather});
  TuneResult r = tune_and_write(load("ndv5"), o, sim::SimParams{});
  EXPECT_FALSE(fs::exists(dir / "algorithms-rooted"));
  for (const CollectiveTune& ct : r.collectives)
    for (const Band& b : ct.bands) {
      EXPECT_TRUE(b.file.empty()) << b.note;
      if (b.winner >= 0) {
        EXPECT_THAT(b.note, HasSubstr(ct.collective == C::Gather ? "has no gather entry point" : "--export-rooted"));
      }
    }
  o.export_rooted = true;
  r = tune_and_write(load("ndv5"), o, sim::SimParams{});
  int broadcast_files = 0;
  for (const CollectiveTune& ct : r.collectives)
    for (const Band& b : ct.bands) {
      if (ct.collective == C::Gather) {
        EXPECT_TRUE(b.file.empty());
      }
      if (ct.collective == C::Broadcast && b.winner >= 0) {
        EXPECT_THAT(b.file, ::testing::StartsWith("algorithms-rooted/broadcast_"));
        EXPECT_TRUE(fs::exists(dir / b.file));
        ++broadcast_files;
      }
    }
  EXPECT_GT(broadcast_files, 0);
  EXPECT_FALSE(fs::exists(dir / "algorithms")) << "nothing rooted goes where MSCCL_ALGO_DIR points";
}

TEST(Deploy, DeployNotesAndEnvironmentNameTheRuntime) {
  const fs::path dir = fresh_dir("notes");
  // Allgather: on MI300X RCCL's own all-pairs allreduce leaves no allreduce file a gain beyond its error.
  tune_and_write(load("mi300x"), options(dir, {C::AllGather}), sim::SimParams{});
  const std::string deploy = read_file(dir / "DEPLOY.md");
  EXPECT_THAT(deploy, HasSubstr("RCCL's MSCCL (ROCm >= 6.0)"));
  EXPECT_THAT(deploy, HasSubstr("`RCCL_MSCCL_FORCE_ENABLE=1`"));
  EXPECT_THAT(deploy, HasSubstr("| `algorithms/allgather_"));
  const std::string env = run("bash -c 'source " + (dir / "env.sh").string() +
                              " && echo \"$MSCCL_ALGO_DIR|$RCCL_MSCCL_ENABLE|$RCCL_MSCCL_FORCE_ENABLE\"'");
  EXPECT_EQ(env, (fs::canonical(dir) / "algorithms").string() + "|1|1\n");
  EXPECT_THAT(read_file(dir / "env.sh"), ::testing::Not(HasSubstr("NCCL_MSCCL_ENABLE")));
  // The bus-bandwidth chart of the tuned collective, and none of another.
  EXPECT_THAT(read_file(dir / "plots" / "allgather.svg"), HasSubstr("<svg"));
  EXPECT_FALSE(fs::exists(dir / "plots" / "allreduce.svg"));
}

TEST(Deploy, OutOfPlaceVariantsAreProvenAndCarryTheirBand) {
  const fs::path dir = fresh_dir("oop");
  const TuneResult r = tune_and_write(load("ndv5"), options(dir, {C::AllReduce, C::AllGather, C::ReduceScatter}), sim::SimParams{});
  int variants = 0;
  for (const CollectiveTune& ct : r.collectives)
    for (const Band& b : ct.bands) {
      if (b.outofplace_file.empty()) continue;
      const ir::Algorithm a = ir::read_msccl_xml(dir / b.outofplace_file);
      EXPECT_TRUE(a.outofplace && !a.inplace) << b.outofplace_file;
      EXPECT_TRUE(ir::check(a).ok()) << b.outofplace_file;
      EXPECT_EQ(b.outofplace_times.size(), static_cast<std::size_t>(std::count_if(
                                               ct.choices.begin(), ct.choices.end(),
                                               [&](const Choice& c) { return c.bytes >= b.min_bytes && c.bytes <= b.max_bytes; })));
      ++variants;
    }
  EXPECT_GT(variants, 0);
}

TEST(Deploy, ARetuneOfOneCollectiveKeepsTheOthersUnlessReplaced) {
  const fs::path dir = fresh_dir("retune");
  tune_and_write(load("ndv5"), options(dir, {C::AllReduce, C::AllGather}), sim::SimParams{});
  std::vector<std::string> allgather_files;
  for (const auto& e : fs::directory_iterator(dir / "algorithms"))
    if (e.path().filename().string().starts_with("allgather_")) allgather_files.push_back(e.path().filename().string());
  ASSERT_FALSE(allgather_files.empty());

  WrittenResult r = tune_and_write(load("ndv5"), options(dir, {C::AllReduce}), sim::SimParams{});
  EXPECT_EQ(r.carried_over, std::vector<std::string>{"allgather"});
  for (const std::string& f : allgather_files) EXPECT_TRUE(fs::exists(dir / "algorithms" / f)) << f;
  EXPECT_THAT(read_file(dir / "selection.csv"), HasSubstr("\nallgather,1024,"));
  EXPECT_THAT(read_file(dir / "selection.md"), HasSubstr("\n## allgather\n"));
  const auto report = nlohmann::json::parse(read_file(dir / "report.json"));
  EXPECT_EQ(report["collectives"].size(), 2u);

  TuneOptions replace = options(dir, {C::AllReduce});
  replace.replace = true;
  r = tune_and_write(load("ndv5"), replace, sim::SimParams{});
  EXPECT_TRUE(r.carried_over.empty());
  for (const std::string& f : allgather_files) EXPECT_FALSE(fs::exists(dir / "algorithms" / f)) << f;

  // Another machine's tune is never mixed in: replaced, and said so.
  tune_and_write(load("ndv5"), options(dir, {C::AllGather}), sim::SimParams{});
  r = tune_and_write(load("dgx1-v100"), options(dir, {C::AllReduce}), sim::SimParams{});
  EXPECT_TRUE(r.carried_over.empty());
  EXPECT_THAT(r.replaced, HasSubstr("was replaced"));
}

// report.json is read back by a re-tune: a forged file path (outside algorithms/, or a FIFO that would
// hang the copy) or collective is refused, not copied into the new outputs or DEPLOY.md (issue 35).
TEST(Deploy, AForgedEarlierReportIsRefused) {
  const fs::path dir = fresh_dir("forged_report");
  tune_and_write(load("ndv5"), options(dir, {C::AllReduce, C::AllGather}), sim::SimParams{});
  const std::string original = read_file(dir / "report.json");
  ASSERT_EQ(::mkfifo((dir / "algorithms" / "fifo.xml").c_str(), 0600), 0);
  const auto forged = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json report = nlohmann::json::parse(original);
    for (nlohmann::json& entry : report["collectives"])
      if (entry["collective"] == "allgather") edit(entry);
    write_file_atomically(dir / "report.json", report.dump());
    fs::remove(dir / "checkpoint.jsonl");  // the last refused tune's, unfinished
    try {
      tune_and_write(load("ndv5"), options(dir, {C::AllReduce}), sim::SimParams{});
    } catch (const DiagError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto first_band_file = [](const std::string& file) {
    return [file](nlohmann::json& entry) {
      for (nlohmann::json& band : entry["bands"]) band["file"] = file;
    };
  };
  EXPECT_THAT(forged(first_band_file("../../../etc/passwd")),
              HasSubstr("report.json: band file '../../../etc/passwd' is not a regular file under algorithms/ of this folder"));
  EXPECT_THAT(forged(first_band_file("algorithms/../../x.xml")), HasSubstr("band file 'algorithms/../../x.xml' is not"));
  EXPECT_THAT(forged(first_band_file("algorithms/fifo.xml")), HasSubstr("band file 'algorithms/fifo.xml' is not"));
  EXPECT_THAT(forged([](nlohmann::json& entry) { entry["collective"] = "allgather\n# injected"; }),
              HasSubstr("report.json: a collective entry names no known collective (\"allgather\\n# injected\")"));
}

TEST(Deploy, ADirectoryWithForeignFilesIsRefusedBeforeAnyWork) {
  const fs::path dir = fresh_dir("foreign");
  fs::create_directories(dir);
  write_file_atomically(dir / "notes.txt", "mine\n");
  try {
    tune_and_write(load("ndv5"), options(dir, {C::AllReduce}), sim::SimParams{});
    FAIL() << "expected a DiagError";
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds 1 entry a tune does not write (first: notes.txt)"));
  }
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_FALSE(fs::exists(dir / "checkpoint.jsonl"));
}

// Each MPI rank checks --out before working; one rank's probe file must not fail another's check.
TEST(Deploy, AnotherProcesssWriteProbeIsNotForeign) {
  const fs::path dir = fresh_dir("probe");
  fs::create_directories(dir);
  write_file_atomically(dir / (std::string(kWriteProbePrefix) + "12345"), "");
  EXPECT_NO_THROW(tune_and_write(load("ndv5"), options(dir, {C::AllReduce}), sim::SimParams{}));
}

TEST(Deploy, NoStagingDirectoryIsLeftBehind) {
  const fs::path dir = fresh_dir("staging");
  tune_and_write(load("ndv5"), options(dir, {C::AllReduce}), sim::SimParams{});
  tune_and_write(load("ndv5"), options(dir, {C::AllReduce}), sim::SimParams{});
  const std::string staging_prefix = std::string(".").append(dir.filename().string()).append(".new.");
  for (const auto& e : fs::directory_iterator(dir.parent_path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(staging_prefix)) << e.path();
}

}  // namespace
}  // namespace ccforge::search
