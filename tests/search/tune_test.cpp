// End-to-end tune on the bundled NDv5 topology at small sizes (fast to simulate): outputs are
// byte-identical across thread counts, a run killed mid-way resumes to the same outputs, every
// exported file passes the checker, and no winner beats the lower bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/selection_table.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "tune_dirs.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;

const topo::Topology& ndv5() { return bundled_ndv5(); }

fs::path fresh_dir(const std::string& name) { return fresh_tune_dir("tune_test", name); }

TuneOptions options(const fs::path& dir, int jobs) {
  TuneOptions o;
  o.collectives = {ir::Collective::AllGather, ir::Collective::AllReduce};
  o.sizes = {1024, 4096, 16384};
  o.jobs = jobs;
  o.out_dir = dir;
  return o;
}

// Every output file, report.json without its "timing" member (wall time and thread count).
std::map<std::string, std::string> outputs(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "checkpoint.jsonl") continue;
    std::string text = read_file(e.path());
    if (e.path().filename() == "report.json") {
      auto j = nlohmann::json::parse(text);
      j.erase("timing");
      text = j.dump();
    }
    files[fs::relative(e.path(), dir).string()] = text;
  }
  return files;
}

TEST(SearchTune, OutputsAreIdenticalWhateverTheThreadCount) {
  const fs::path a = fresh_dir("j1"), b = fresh_dir("j2");
  tune(ndv5(), options(a, 1), sim::SimParams{});
  tune(ndv5(), options(b, 2), sim::SimParams{});
  const auto fa = outputs(a), fb = outputs(b);
  EXPECT_EQ(fa.size(), fb.size());
  for (const auto& [name, text] : fa) EXPECT_EQ(text, fb.at(name)) << name;
  EXPECT_TRUE(fa.count("selection.csv") && fa.count("selection.md") && fa.count("bands.csv"));
}

// report.json names the longest simulations (a way to see where a tune's time goes), longest first,
// each a finished task with its simulated time and, for a candidate, a model floor not above it.
TEST(SearchTune, ReportListsTheSlowestSimulations) {
  const fs::path dir = fresh_dir("slowest");
  const TuneResult r = tune(ndv5(), options(dir, 2), sim::SimParams{});
  const auto slowest = nlohmann::json::parse(read_file(dir / "report.json"))["timing"]["slowest_simulations"];
  ASSERT_EQ(slowest.size(), std::min(kSlowestSimulationsReported, r.simulations));
  for (std::size_t k = 0; k < slowest.size(); ++k) {
    if (k > 0) {
      EXPECT_GE(slowest[k - 1]["wall_s"].get<double>(), slowest[k]["wall_s"].get<double>());
    }
    EXPECT_GT(slowest[k]["simulated_us"].get<double>(), 0.0) << slowest[k]["task"];
    EXPECT_LE(slowest[k]["floor_us"].get<double>(), slowest[k]["simulated_us"].get<double>()) << slowest[k]["task"];
  }
}

TEST(SearchTune, KilledRunResumesToTheSameOutputs) {
  const fs::path whole = fresh_dir("whole"), killed = fresh_dir("killed");
  tune(ndv5(), options(whole, 2), sim::SimParams{});
  TuneOptions o = options(killed, 2);
  // Killed at the 10th simulation progress report (a finished simulation, or candidates sure to be
  // pruned).
  o.progress = [calls = 0](const TuneProgress& p) mutable {
    if (p.phase == kPhaseSimulations && p.done > 0 && ++calls == 10) throw std::runtime_error("simulated kill");
  };
  EXPECT_THROW(tune(ndv5(), o, sim::SimParams{}), std::runtime_error);
  ASSERT_FALSE(fs::exists(killed / "selection.csv"));
  // A kill can also tear the line being written.
  { std::ofstream(killed / "checkpoint.jsonl", std::ios::app) << "{\"key\":\"allgather/ring"; }
  o.progress = nullptr;
  o.resume = true;
  const TuneResult resumed = tune(ndv5(), o, sim::SimParams{});
  EXPECT_GT(resumed.resumed_tasks, 0u);
  EXPECT_LT(resumed.resumed_tasks, resumed.simulations);
  const auto fw = outputs(whole), fk = outputs(killed);
  for (const auto& [name, text] : fw) EXPECT_EQ(text, fk.at(name)) << name;
}

// Candidates pruned at a size count as done (and skipped, so the ETA leaves them out of its average) as
// soon as they are sure to be pruned, not when the size's last simulation ends: one size, one
// collective, so a late count could only come with the phase's last report.
TEST(SearchTune, PrunedCandidatesCountAsDoneBeforeTheLastSimulation) {
  TuneOptions o = options(fresh_dir("settled"), 2);
  o.collectives = {ir::Collective::AllReduce};
  o.sizes = {16384};
  std::vector<TuneProgress> reports;
  o.progress = [&](const TuneProgress& p) {
    if (p.phase == kPhaseSimulations) reports.push_back(p);
  };
  const TuneResult r = tune(ndv5(), o, sim::SimParams{});
  ASSERT_GT(r.pruned, 0u);
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().done, reports.back().total);
  EXPECT_EQ(reports.back().skipped, r.pruned);
  EXPECT_EQ(reports.back().done - reports.back().skipped, r.simulations);
  const auto early = std::find_if(reports.begin(), reports.end(), [](const TuneProgress& p) { return p.skipped > 0; });
  ASSERT_NE(early, reports.end());
  EXPECT_LT(early->done - early->skipped, r.simulations);
}

// The kill came after candidate building and the time floors: resuming proves no grid point again
// (accepted ones are only regenerated) and computes no floor again, and still gives the same outputs.
TEST(SearchTune, ResumeDoesNotRebuildCandidatesOrFloors) {
  const fs::path whole = fresh_dir("whole_b"), killed = fresh_dir("killed_b");
  const TuneResult full = tune(ndv5(), options(whole, 2), sim::SimParams{});
  EXPECT_GT(full.points_proven, 0u);
  EXPECT_EQ(full.points_resumed, 0u);
  TuneOptions o = options(killed, 2);
  o.progress = [](const TuneProgress& p) {
    if (p.phase == kPhaseSimulations && p.done > 0) throw std::runtime_error("simulated kill");
  };
  EXPECT_THROW(tune(ndv5(), o, sim::SimParams{}), std::runtime_error);
  o.progress = nullptr;
  o.resume = true;
  const TuneResult resumed = tune(ndv5(), o, sim::SimParams{});
  EXPECT_EQ(resumed.points_proven, 0u);
  EXPECT_EQ(resumed.points_resumed, full.points_proven);
  std::size_t candidates = 0;
  for (const CollectiveTune& ct : full.collectives) candidates += ct.candidates.accepted.size();
  EXPECT_EQ(resumed.floors_resumed, candidates);
  const auto fw = outputs(whole), fk = outputs(killed);
  EXPECT_EQ(fw.size(), fk.size());
  for (const auto& [name, text] : fw) EXPECT_EQ(text, fk.at(name)) << name;
}

TEST(SearchTune, ResumingAnotherTunesCheckpointIsAClearError) {
  const fs::path dir = fresh_dir("other");
  tune(ndv5(), options(dir, 2), sim::SimParams{});
  TuneOptions o = options(dir, 2);
  o.sizes = {1024, 2048};
  o.resume = true;
  try {
    tune(ndv5(), o, sim::SimParams{});
    FAIL() << "expected a DiagError";
  } catch (const DiagError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint.jsonl:1: checkpoint was made by a tune with another"), std::string::npos)
        << e.what();
  }
}

TEST(SearchTune, ExportedFilesPassTheCheckerAndCarryTheirBand) {
  const fs::path dir = fresh_dir("export");
  const TuneResult r = tune(ndv5(), options(dir, 2), sim::SimParams{});
  int files = 0;
  for (const auto& ct : r.collectives)
    for (const auto& band : ct.bands) {
      if (band.winner < 0) continue;
      for (const std::string& file : {band.file, band.outofplace_file}) {
        ASSERT_FALSE(file.empty()) << ir::to_string(ct.collective) << " " << band.note;
        const ir::Algorithm algo = ir::read_msccl_xml(dir / file);
        EXPECT_TRUE(ir::check(algo, ir::runtime_target(r.target.runtime), r.target.multiprocessors).ok()) << file;
        EXPECT_EQ(algo.min_bytes, band.min_bytes);
        EXPECT_EQ(algo.max_bytes, band.max_bytes);
        EXPECT_NE(algo.inplace, file == band.outofplace_file) << file;
        ++files;
      }
    }
  EXPECT_EQ(static_cast<std::size_t>(files), std::distance(fs::directory_iterator(dir / "algorithms"), fs::directory_iterator{}));
}

TEST(SearchTune, NoChoiceBeatsTheLowerBound) {
  const TuneResult r = tune(ndv5(), options(fresh_dir("bound"), 2), sim::SimParams{});
  for (const auto& ct : r.collectives)
    for (const auto& c : ct.choices) EXPECT_GE(c.best, c.lower_bound) << ir::to_string(ct.collective) << " " << c.bytes;
}

TEST(SearchTune, PruningKeepsTheSameWinners) {
  TuneOptions pruned = options(fresh_dir("pruned"), 2), full = options(fresh_dir("full"), 2);
  // Up to 8 MB, where LL candidates are held by the GPU's LL issue rate and only sim::time_floors
  // (not their smaller-size times) shows they cannot win.
  pruned.sizes = full.sizes = {1024, 8192, 65536, 524288, 8388608};
  full.prune = false;
  const TuneResult a = tune(ndv5(), pruned, sim::SimParams{}), b = tune(ndv5(), full, sim::SimParams{});
  EXPECT_EQ(selection_rows(a), selection_rows(b));
  const auto fa = outputs(pruned.out_dir), fb = outputs(full.out_dir);
  EXPECT_EQ(fa.at("bands.csv"), fb.at("bands.csv"));
  for (const auto& [name, text] : fa) {
    if (name.starts_with("algorithms/")) {
      EXPECT_EQ(text, fb.at(name)) << name;
    }
  }
  EXPECT_EQ(b.pruned, 0u);
  EXPECT_LT(a.simulations, b.simulations);
  EXPECT_EQ(a.simulations + a.pruned, b.simulations);
  EXPECT_GT(a.pruned_by_time_floor_only, 0u);
  EXPECT_LE(a.pruned_by_time_floor_only, a.pruned);
}

TEST(SearchTune, SelectionCsvHasTheDocumentedHeaderAndOneRowPerSize) {
  const TuneOptions o = options(fresh_dir("csv"), 2);
  const TuneResult r = tune(ndv5(), o, sim::SimParams{});
  const std::string csv = read_file(o.out_dir / "selection.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct,lower_bound_us,nccl_algorithm,"
            "nccl_channels,expected_error_pct");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 3);
  EXPECT_EQ(selection_rows(r).size(), 2u * 3);
}

// What selection.csv and selection.md say is what the tune chose: read back, every row equals the
// result's, to the precision the files carry (times to 0.001 us in the CSV, 0.01 us in the tables).
void expect_same_rows(const std::vector<sim::SelectionRow>& read, const std::vector<sim::SelectionRow>& tuned, double us,
                      bool channels) {
  ASSERT_EQ(read.size(), tuned.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    sim::SelectionRow expected = tuned[i], got = read[i];
    EXPECT_NEAR(*got.nccl_us, *expected.nccl_us, us) << i;
    EXPECT_NEAR(*got.best_us, *expected.best_us, us) << i;
    EXPECT_NEAR(*got.lower_bound_us, *expected.lower_bound_us, channels ? us : 0.001 * *expected.best_us) << i;
    if (expected.expected_error_pct) {
      EXPECT_NEAR(*got.expected_error_pct, *expected.expected_error_pct, 0.05) << i;
    }
    if (!channels) expected.nccl->nchannels = 0;  // the tables leave the channel count out
    got.nccl_us = got.best_us = got.lower_bound_us = got.expected_error_pct = std::nullopt;
    expected.nccl_us = expected.best_us = expected.lower_bound_us = expected.expected_error_pct = std::nullopt;
    EXPECT_EQ(got, expected) << i;
  }
}

TEST(SearchTune, SelectionFilesReadBackAsTheTunedRows) {
  TuneOptions o;
  o.collectives = {ir::Collective::AllReduce, ir::Collective::AllGather, ir::Collective::Broadcast};
  o.sizes = {1024, 65536, 524288, 4194304};
  o.out_dir = fresh_dir("readback");
  const TuneResult r = tune(ndv5(), o, sim::SimParams{});
  const std::vector<sim::SelectionRow> tuned = selection_rows(r);
  const std::string csv = read_file(o.out_dir / "selection.csv");
  const auto from_csv = sim::read_selection_csv(csv, "selection.csv");
  expect_same_rows(from_csv, tuned, 0.0005, true);
  const std::string rewritten = sim::selection_csv(from_csv);  // derived columns now from the printed times
  EXPECT_EQ(sim::selection_csv(sim::read_selection_csv(rewritten, "rewritten")), rewritten);
  expect_same_rows(sim::read_selection_markdown(read_file(o.out_dir / "selection.md"), "selection.md"), tuned, 0.005, false);
  EXPECT_TRUE(std::any_of(tuned.begin(), tuned.end(), [](const auto& row) { return row.expected_error_pct.has_value(); }));
}

// An allgather that fits every size here but that the simulator finds deadlocked: a fault of the
// candidate rather than a size it cannot run.
Candidate deadlocking_allgather() {
  Candidate c;
  c.algorithm = ir::read_msccl_xml(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/sim/deadlock_allgather_8.xml");
  c.name = c.algorithm.name;
  c.generator = "test";
  return c;
}

TEST(SearchTune, CandidateTheSimulatorRefusesIsRejectedWithItsReason) {
  TuneOptions o = options(fresh_dir("refused"), 2);
  o.collectives = {ir::Collective::AllGather};
  o.prune = false;  // pruning may skip it at every size: it can only be rejected where it is simulated
  CandidateSet set = enumerate_candidates(ndv5(), ir::Collective::AllGather);
  const std::size_t enumerated = set.accepted.size();
  set.accepted.insert(set.accepted.begin() + 1, deadlocking_allgather());
  const TuneResult r = tune(ndv5(), o, sim::SimParams{}, {set});

  const CandidateSet& after = r.collectives[0].candidates;
  EXPECT_EQ(after.accepted.size(), enumerated);
  for (const Candidate& c : after.accepted) EXPECT_NE(c.name, "deadlock");
  ASSERT_FALSE(after.rejected.empty());
  EXPECT_EQ(after.rejected.back().name, "deadlock");
  EXPECT_NE(after.rejected.back().reason.find("simulator at 1024 B: algorithm deadlocks"), std::string::npos)
      << after.rejected.back().reason;
  for (const SizeResult& size : r.collectives[0].sizes) EXPECT_EQ(size.times.size(), enumerated);

  const auto report = nlohmann::json::parse(read_file(o.out_dir / "report.json"));
  const auto& rejected = report["collectives"][0]["candidates"]["rejected"];
  ASSERT_FALSE(rejected.empty());
  EXPECT_EQ(rejected.back()["name"], "deadlock");
}

}  // namespace
}  // namespace ccforge::search
