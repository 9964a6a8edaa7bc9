// A tune shared among the processes of a job (TuneOptions::share), with the processes played by
// threads (the MPI job itself is tested from the command line: tests/cli/mpi_tune.cmake): rank 0's
// outputs equal one process's, the other ranks write only their checkpoints, and a job killed part way
// resumes from its partial per-rank checkpoints, also with another number of processes.
#include <gtest/gtest.h>

#include <barrier>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "tune_dirs.hpp"
#include "tune_written.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;

// The job's processes as threads: all_gather posts each part in a shared slot and waits for all.
class ThreadJob {
 public:
  explicit ThreadJob(int size) : sync_(size), parts_(static_cast<std::size_t>(size)) {
    for (int r = 0; r < size; ++r) members_.emplace_back(*this, r);
  }
  const WorkShare& member(int rank) const { return members_[static_cast<std::size_t>(rank)]; }
  int size() const { return static_cast<int>(members_.size()); }

 private:
  class Member final : public WorkShare {
   public:
    Member(ThreadJob& job, int rank) : job_(job), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return job_.size(); }
    std::vector<std::string> all_gather(const std::string& mine) const override {
      job_.parts_[static_cast<std::size_t>(rank_)] = mine;
      job_.sync_.arrive_and_wait();
      std::vector<std::string> all = job_.parts_;
      job_.sync_.arrive_and_wait();  // nobody posts the next part before everyone has read this one
      return all;
    }

   private:
    ThreadJob& job_;
    int rank_;
  };

  std::barrier<> sync_;
  std::vector<std::string> parts_;
  std::vector<Member> members_;
};

const topo::Topology& ndv5() { return bundled_ndv5(); }

fs::path fresh_dir(const std::string& name) { return fresh_tune_dir("work_share_test", name); }

TuneOptions options(const fs::path& dir) {
  TuneOptions o;
  o.collectives = {ir::Collective::AllGather, ir::Collective::AllReduce};
  o.sizes = {1024, 4096, 16384, 65536};
  o.jobs = 1;
  o.out_dir = dir;
  return o;
}

// Rank 0's result; every rank runs tune() on its own thread.
TuneResult tune_shared(const TuneOptions& o, int processes) {
  ThreadJob job(processes);
  std::vector<TuneResult> results(static_cast<std::size_t>(processes));
  std::vector<std::thread> threads;
  for (int r = 0; r < processes; ++r)
    threads.emplace_back([&, r] {
      TuneOptions mine = o;
      mine.share = &job.member(r);
      results[static_cast<std::size_t>(r)] = tune_and_write(ndv5(), mine, sim::SimParams{});
    });
  for (std::thread& t : threads) t.join();
  return results.front();
}

// Every output but the checkpoints, report.json without "timing" (what describes the run).
std::map<std::string, std::string> outputs(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.starts_with("checkpoint.")) continue;
    std::string text = read_file(e.path());
    if (name == "report.json") {
      auto j = nlohmann::json::parse(text);
      j.erase("timing");
      text = j.dump();
    }
    files[fs::relative(e.path(), dir).string()] = text;
  }
  return files;
}

void expect_same_outputs(const fs::path& a, const fs::path& b) {
  const auto fa = outputs(a), fb = outputs(b);
  EXPECT_EQ(fa.size(), fb.size());
  for (const auto& [name, text] : fa) {
    ASSERT_TRUE(fb.count(name)) << name;
    EXPECT_EQ(text, fb.at(name)) << name;
  }
}

std::vector<std::string> lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  return all;
}

TEST(SearchWorkShare, ThreeProcessesWriteWhatOneWrites) {
  const fs::path one = fresh_dir("one"), three = fresh_dir("three");
  const TuneResult single = tune_and_write(ndv5(), options(one), sim::SimParams{});
  const TuneResult shared = tune_shared(options(three), 3);
  expect_same_outputs(one, three);
  EXPECT_EQ(single.simulations, shared.simulations);
  ASSERT_EQ(shared.processes.size(), 3u);
  std::size_t simulated = 0;
  for (const ProcessUsage& p : shared.processes) {
    EXPECT_GT(p.simulations, 0u);  // every rank had a share
    simulated += p.simulations;
  }
  EXPECT_EQ(simulated, shared.simulations);  // and no simulation ran twice
  for (const ProcessUsage& p : shared.processes) EXPECT_LT(p.points_proven, single.points_proven);
  EXPECT_EQ(shared.points_proven, single.points_proven);  // each grid point proven once in the job
  // Rank 0's checkpoint holds every result (a single process can resume from it); the others their own.
  EXPECT_EQ(lines(one / "checkpoint.jsonl").size(), lines(three / "checkpoint.jsonl").size());
  for (const char* name : {"checkpoint.rank1.jsonl", "checkpoint.rank2.jsonl"}) EXPECT_TRUE(fs::exists(three / name)) << name;
  const auto report = nlohmann::json::parse(read_file(three / "report.json"));
  EXPECT_EQ(report["timing"]["processes"].size(), 3u);
}

// A job killed part way through the simulations: each rank's checkpoint keeps a third of its
// simulations (its last line torn); the job resumes with three processes, or with two, to the same
// outputs.
TEST(SearchWorkShare, PartialCheckpointsResume) {
  const fs::path one = fresh_dir("one_r"), whole = fresh_dir("whole_r");
  tune_and_write(ndv5(), options(one), sim::SimParams{});
  tune_shared(options(whole), 3);
  for (int processes : {3, 2}) {
    const fs::path killed = fresh_dir("killed_" + std::to_string(processes));
    fs::create_directories(killed);
    for (const char* name : {"checkpoint.jsonl", "checkpoint.rank1.jsonl", "checkpoint.rank2.jsonl"}) {
      // Killed during the simulations: candidates and floors journaled, a third of the simulations.
      std::vector<std::string> kept, simulations;
      for (const std::string& line : lines(whole / name))
        if (line != R"({"finished":true})")  // a finished run's end mark: a killed run's journal has none
          (line.find("\"ps\"") != std::string::npos ? simulations : kept).push_back(line);
      kept.insert(kept.end(), simulations.begin(), simulations.begin() + static_cast<std::ptrdiff_t>(simulations.size() / 3));
      std::ofstream out(killed / name);
      for (const std::string& line : kept) out << line << "\n";
      out << simulations.back().substr(0, 20);  // torn mid-write
    }
    TuneOptions o = options(killed);
    o.resume = true;
    const TuneResult resumed = tune_shared(o, processes);
    EXPECT_GT(resumed.resumed_tasks, 0u);
    EXPECT_LT(resumed.resumed_tasks, resumed.simulations);
    expect_same_outputs(one, killed);
  }
}

}  // namespace
}  // namespace ccforge::search
