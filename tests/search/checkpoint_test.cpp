// A tune's checkpoint read back is untrusted input (issue 35): every forged entry is refused at its line
// before any is used (a short floors list was an out-of-bounds read in SizeWaves; "ps":1e30 gave
// best_us = -9223372036854.775; 1 ps gave 0.000 us below the tool's own lower bound), and a new tune
// does not overwrite the journal of one that did not finish.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "diag_message.hpp"
#include "tune/checkpoint.hpp"
#include "tune_dirs.hpp"
#include "tune_written.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;
using ::ccforge::testing::diag_message;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::vector<ByteCount> kSizes{1024, 2048};

// The message of resuming a journal whose header is right and whose entries are `entries`.
std::string resume_message(const std::string& name, const std::vector<std::string>& entries) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", name);
  fs::create_directories(dir);
  std::string text = R"({"fingerprint":"fp","version":1})" "\n";
  for (const std::string& e : entries) text += e + "\n";
  text += R"({"key":"allreduce/ring/1024","ps":7})" "\n";  // a good last line: nothing is "torn"
  write_file_atomically(dir / "checkpoint.jsonl", text);
  const std::string message = diag_message([&] { CheckpointJournal(dir / "checkpoint.jsonl", "fp", true, kSizes); });
  fs::remove_all(dir);
  return message.substr(message.find("checkpoint.jsonl"));
}

TEST(SearchCheckpoint, ForgedEntriesAreRefusedAtTheirLine) {
  const std::string fix = " (delete it or rerun without --resume)";
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"key":"floors/allreduce/ring","floors":[5]})",
       R"(malformed checkpoint entry: "floors" holds 1 values where the tune has 2 sizes (or none: no floor))"},
      {R"({"key":"allgather/ring/2048","ps":1e30})", "malformed checkpoint entry: time 1e+30 is not a whole number of picoseconds"},
      {R"({"key":"allgather/ring/2048","ps":-5})", "malformed checkpoint entry: time -5 ps is outside 1 to 604800000000000000 ps"},
      {R"({"key":"allgather/ring/2048","ps":0})", "malformed checkpoint entry: time 0 ps is outside 1 to 604800000000000000 ps"},
      {R"({"key":"allgather/ring/2048","ps":18446744073709551615})",
       "malformed checkpoint entry: time 18446744073709551615 ps is outside 1 to 604800000000000000 ps"},
      {R"({"key":"allgather/ring/2048","ps":"nan"})", R"(malformed checkpoint entry: time "nan" is not a whole number of picoseconds)"},
      {R"({"key":"allgather/ring/2048","ps":5,"ps":6})", R"(malformed checkpoint entry: "ps" appears twice)"},
      {R"({"key":"allgather/NCCL/2048","ps":null})", R"(malformed checkpoint entry: NCCL's result has no time ("ps": null))"},
      {R"({"key":"allgather/ring/4096","ps":5})",
       "malformed checkpoint entry: result key 'allgather/ring/4096' is not COLLECTIVE/CANDIDATE/BYTES with one of the tune's sizes"},
      {R"({"key":"allgather/ring/2048","ps":5,"error":"x"})", "malformed checkpoint entry: a result with both a time and an error"},
      {R"({"key":"allgather/ring/2048","ps":null,"error":"\u001b[2J"})",
       R"(malformed checkpoint entry: "error" holds a control character or malformed UTF-8)"},
      {R"({"key":"allgather/ring/2048","ps":5,"extra":1})", R"(malformed checkpoint entry: unknown member "extra")"},
      {R"({"key":"built/allreduce/ring/0/3/Simple","verdict":{"name":"r","accepted":true,"unfit":true,"why_not":""}})",
       "malformed checkpoint entry: an accepted verdict with a reason to reject it"},
      {R"({"key":"built/allreduce/ring/0/3/Fast","verdict":{"name":"r","accepted":false,"unfit":false,"why_not":""}})",
       "malformed checkpoint entry: verdict key 'built/allreduce/ring/0/3/Fast' is not built/COLLECTIVE/GENERATOR/TREES/POINT/PROTOCOL"},
      {R"([1,2])", R"(malformed checkpoint entry: an entry without a "key")"},
      {R"({"finished":true})", R"(malformed checkpoint entry: an entry without a "key")"},
      {"not json", "malformed checkpoint entry: not JSON"},
  };
  for (const auto& [entry, problem] : cases)
    EXPECT_EQ(resume_message("forged", {entry}), "checkpoint.jsonl:2: " + problem + fix) << entry;
  EXPECT_EQ(resume_message("twice", {R"({"key":"allgather/ring/2048","ps":5})", R"({"key":"allgather/ring/2048","ps":6})"}),
            "checkpoint.jsonl:3: a second entry for 'allgather/ring/2048'" + fix);
}

// A header whose members have the wrong type is refused at line 1, not thrown at by the JSON reader
// (found by the checkpoint fuzzer: "version":{...}).
TEST(SearchCheckpoint, ForgedHeadersAreRefusedAtLineOne) {
  const std::string fix = " (delete it or rerun without --resume)";
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"fingerprint":"fp","version":{"accepted":true}})", "not a ccforge tune checkpoint"},
      {R"({"fingerprint":"fp","version":"1"})", "not a ccforge tune checkpoint"},
      {R"({"fingerprint":"fp","version":1.5})", "not a ccforge tune checkpoint"},
      {R"({"fingerprint":"fp"})", "not a ccforge tune checkpoint"},
      {R"({"fingerprint":7,"version":1})", "checkpoint was made by a tune with another topology, profile, dtype or size range"},
      {R"({"version":1})", "checkpoint was made by a tune with another topology, profile, dtype or size range"},
  };
  for (const auto& [header, problem] : cases) {
    const fs::path dir = fresh_tune_dir("checkpoint_test", "header");
    fs::create_directories(dir);
    write_file_atomically(dir / "checkpoint.jsonl", header + "\n" + R"({"key":"allreduce/ring/1024","ps":7})" "\n");
    const std::string message = diag_message([&] { CheckpointJournal(dir / "checkpoint.jsonl", "fp", true, kSizes); });
    fs::remove_all(dir);
    EXPECT_EQ(message.substr(message.find("checkpoint.jsonl")), "checkpoint.jsonl:1: " + problem + fix) << header;
  }
}

TEST(SearchCheckpoint, GoodEntriesAndAFinishedMarkAreTaken) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", "good");
  fs::create_directories(dir);
  write_file_atomically(dir / "checkpoint.jsonl",
                        R"({"fingerprint":"fp","version":1})" "\n"
                        R"({"key":"floors/allreduce/ring","floors":[0,5]})" "\n"
                        R"({"key":"floors/allreduce/tree","floors":[]})" "\n"
                        R"({"key":"allreduce/ring/2048","ps":null,"error":"does not fit"})" "\n"
                        R"({"key":"allreduce/NCCL/1024","ps":7})" "\n" +
                            CheckpointJournal::finished_line());
  const CheckpointJournal journal(dir / "checkpoint.jsonl", "fp", true, kSizes);
  EXPECT_EQ(journal.floors().at("floors/allreduce/ring"), (std::vector<SimTime>{SimTime{0}, SimTime{5}}));
  EXPECT_TRUE(journal.floors().at("floors/allreduce/tree").empty());
  EXPECT_EQ(journal.finished().at("allreduce/NCCL/1024").time, SimTime{7});
  EXPECT_EQ(journal.finished().at("allreduce/ring/2048").error, "does not fit");
  fs::remove_all(dir);
}

TuneOptions small_tune(const fs::path& dir) {
  TuneOptions o;
  o.collectives = {ir::Collective::AllReduce};
  o.sizes = {1024, 4096};
  o.jobs = 1;
  o.out_dir = dir;
  return o;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const fs::path& file, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  write_file_atomically(file, text);
}

// A finished tune's journal, made unfinished, with `edit` applied to the first entry whose key starts
// with `prefix`; returns that entry's line number.
int forge(const fs::path& dir, const std::string& prefix, const std::function<void(nlohmann::json&)>& edit) {
  std::vector<std::string> lines = lines_of(dir / "checkpoint.jsonl");
  EXPECT_EQ(lines.back() + "\n", CheckpointJournal::finished_line());
  lines.pop_back();
  for (std::size_t n = 1; n < lines.size(); ++n) {
    nlohmann::json j = nlohmann::json::parse(lines[n]);
    if (!j.at("key").get<std::string>().starts_with(prefix)) continue;
    edit(j);
    lines[n] = j.dump();
    write_lines(dir / "checkpoint.jsonl", lines);
    return static_cast<int>(n) + 1;
  }
  ADD_FAILURE() << "no entry " << prefix;
  return 0;
}

// A time the journal's format allows but the simulator cannot give: below its proven lower bound.
TEST(SearchCheckpoint, ResumedTimesBelowTheLowerBoundAreRefused) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", "below");
  tune_and_write(bundled_ndv5(), small_tune(dir), sim::SimParams{});
  const int line = forge(dir, "allreduce/NCCL/4096", [](nlohmann::json& j) { j["ps"] = 1; });
  TuneOptions o = small_tune(dir);
  o.resume = true;
  EXPECT_THAT(diag_message([&] { tune_and_write(bundled_ndv5(), o, sim::SimParams{}); }),
              AllOf(HasSubstr("checkpoint.jsonl:" + std::to_string(line) + ": 0.000001 us is below the simulator's lower bound of "),
                    HasSubstr(" us for 4096 B (the checkpoint was altered: delete it or rerun without --resume)")));
  fs::remove_all(dir);
}

// The first candidate (not NCCL) of the journal with a time at `bytes`, or "".
std::string simulated_candidate(const fs::path& dir, ByteCount bytes) {
  for (const std::string& l : lines_of(dir / "checkpoint.jsonl")) {
    const nlohmann::json j = nlohmann::json::parse(l);
    const std::string key = j.value("key", "");
    if (key.starts_with("allreduce/") && !key.starts_with("allreduce/NCCL/") && key.ends_with("/" + std::to_string(bytes)) &&
        j["ps"].is_number())
      return key.substr(10, key.rfind('/') - 10);
  }
  return "";
}

// Above the collective's lower bound but below the candidate's own time floor: not simulated either.
TEST(SearchCheckpoint, ResumedTimesBelowTheirCandidatesFloorAreRefused) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", "below_floor");
  tune_and_write(bundled_ndv5(), small_tune(dir), sim::SimParams{});
  const auto report = nlohmann::json::parse(read_file(dir / "report.json"));
  const auto bound_ps = std::llround(report["collectives"][0]["sizes"][1]["lower_bound_us"].get<double>() * 1e6);
  const std::string candidate = simulated_candidate(dir, 4096);
  ASSERT_FALSE(candidate.empty());
  // Without its journaled floors, which would be found inconsistent first, the floor is computed again.
  std::vector<std::string> lines = lines_of(dir / "checkpoint.jsonl");
  std::erase_if(lines, [&](const std::string& l) { return l.find("\"floors/allreduce/" + candidate + "\"") != std::string::npos; });
  write_lines(dir / "checkpoint.jsonl", lines);
  const int line = forge(dir, "allreduce/" + candidate + "/4096", [&](nlohmann::json& j) { j["ps"] = bound_ps + 1; });
  TuneOptions o = small_tune(dir);
  o.resume = true;
  EXPECT_THAT(diag_message([&] { tune_and_write(bundled_ndv5(), o, sim::SimParams{}); }),
              HasSubstr(fmt::format("checkpoint.jsonl:{}: {:.6f} us is below the candidate's time floor of ", line,
                                    static_cast<double>(bound_ps + 1) / 1e6)));
  fs::remove_all(dir);
}

// A floor above the candidate's own journaled time would prune it where it may win.
TEST(SearchCheckpoint, ResumedFloorsAboveTheirTimesAreRefused) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", "floor");
  tune_and_write(bundled_ndv5(), small_tune(dir), sim::SimParams{});
  const std::string candidate = simulated_candidate(dir, 1024);
  ASSERT_FALSE(candidate.empty());
  const int line = forge(dir, "floors/allreduce/" + candidate, [](nlohmann::json& j) {
    j["floors"] = nlohmann::json::array({std::int64_t{1} << 50, std::int64_t{1} << 50});
  });
  TuneOptions o = small_tune(dir);
  o.resume = true;
  EXPECT_THAT(diag_message([&] { tune_and_write(bundled_ndv5(), o, sim::SimParams{}); }),
              HasSubstr("checkpoint.jsonl:" + std::to_string(line) + ": floor 1125899906.842624 us is above the journaled time "));
  fs::remove_all(dir);
}

// An "accepted" verdict read back is proven again: forged onto a point RCCL's rules reject (more than 64
// threadblocks a rank), it is refused at its line instead of shipping a file RCCL cannot load.
TEST(SearchCheckpoint, ResumedAcceptedVerdictsAreProvenAgain) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", "accepted");
  TuneOptions o = small_tune(dir);
  o.runtime = ir::Runtime::Rccl;
  tune_and_write(bundled_ndv5(), o, sim::SimParams{});
  std::string unfit_key;
  for (const std::string& l : lines_of(dir / "checkpoint.jsonl")) {
    const nlohmann::json j = nlohmann::json::parse(l);
    if (j.contains("verdict") && j["verdict"]["unfit"] == true &&
        j["verdict"]["why_not"].get<std::string>().find("runtime.tbs") != std::string::npos)
      unfit_key = j["key"];
  }
  ASSERT_FALSE(unfit_key.empty());
  const int line = forge(dir, unfit_key, [](nlohmann::json& j) {
    j["verdict"]["accepted"] = true;
    j["verdict"]["unfit"] = false;
    j["verdict"]["why_not"] = "";
  });
  const std::string report = read_file(dir / "report.json");
  o.resume = true;
  EXPECT_THAT(diag_message([&] { tune_and_write(bundled_ndv5(), o, sim::SimParams{}); }),
              AllOf(HasSubstr("checkpoint.jsonl:" + std::to_string(line) + ": '"),
                    HasSubstr("' is recorded as accepted, but runtime rccl: runtime.tbs: "),
                    HasSubstr("(the checkpoint was altered: delete it or rerun without --resume)")));
  EXPECT_EQ(read_file(dir / "report.json"), report);  // nothing written
  fs::remove_all(dir);
}

// A new tune (no --resume) into a folder holding a killed tune's journal says so and keeps the journal;
// a finished tune's journal it replaces.
TEST(SearchCheckpoint, AnUnfinishedTunesJournalIsNotOverwritten) {
  const fs::path dir = fresh_tune_dir("checkpoint_test", "unfinished");
  TuneOptions o = small_tune(dir);
  o.progress = [](const TuneProgress& p) {
    if (p.phase == kPhaseSimulations && p.done > 0) throw std::runtime_error("simulated kill");
  };
  EXPECT_THROW(tune_and_write(bundled_ndv5(), o, sim::SimParams{}), std::runtime_error);
  const std::string journal = read_file(dir / "checkpoint.jsonl");
  o.progress = nullptr;
  EXPECT_THAT(diag_message([&] { tune_and_write(bundled_ndv5(), o, sim::SimParams{}); }),
              HasSubstr("checkpoint.jsonl: holds the results of a tune that did not finish; not overwritten (continue it with "
                        "--resume, or delete the file to start afresh)"));
  EXPECT_EQ(read_file(dir / "checkpoint.jsonl"), journal);
  o.resume = true;
  tune_and_write(bundled_ndv5(), o, sim::SimParams{});
  o.resume = false;
  EXPECT_EQ(diag_message([&] { tune_and_write(bundled_ndv5(), o, sim::SimParams{}); }), "no error");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ccforge::search
