// Machine-readable outputs end to end: `ccforge sim --format json` and csv (metadata, rounded rows, --coll
// lists), the Perfetto trace (a process per rank, slice arguments, an end at the time the table reports)
// and tune's report.json metadata, which a carrying-over re-tune still reads.
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/run_metadata.hpp"
#include "source_dir.hpp"

namespace ccforge {
namespace {

namespace fs = std::filesystem;

// stdout of `ccforge ARGS` run from the source root; fails the test on a non-zero exit.
std::string run_ccforge(const std::vector<std::string>& args) {
  std::string command = std::string("cd '") + CCFORGE_SOURCE_DIR + "' && '" + CCFORGE_BIN + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) out.append(buffer.data(), n);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  return out;
}

// time_us of each size of `ccforge sim ARGS --format csv`, as the CSV prints it.
std::vector<std::pair<std::uint64_t, std::string>> csv_times(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "csv"});
  std::istringstream csv(run_ccforge(args));
  std::vector<std::pair<std::uint64_t, std::string>> times;
  std::string line;
  std::getline(csv, line);  // header
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    times.emplace_back(std::stoull(cells.at(0)), cells.at(3));
  }
  return times;
}

bool is_thousandths(double x) { return std::abs(x * 1000.0 - std::round(x * 1000.0)) < 1e-6; }

const std::string kTopo = "data/topologies/dgx-h100.xml";

// The output of `ccforge ARGS` (a sim on kTopo), checked to be an object with the run's metadata.
nlohmann::json sim_json_with_metadata(const std::vector<std::string>& args, const std::string& schema) {
  const nlohmann::json out = nlohmann::json::parse(run_ccforge(args));
  EXPECT_TRUE(out.is_object());
  EXPECT_EQ(out["schema"], schema);
  EXPECT_EQ("ccforge " + out["ccforge_version"].get<std::string>() + "\n", run_ccforge({"--version"}));
  std::vector<std::string> command{CCFORGE_BIN};
  command.insert(command.end(), args.begin(), args.end());
  EXPECT_EQ(out["command"], nlohmann::json(command));
  EXPECT_EQ(out["inputs"].size(), 1u);
  EXPECT_EQ(out["inputs"][0]["file"], kTopo);
  EXPECT_EQ(out["inputs"][0]["fnv1a64"], fnv1a64_hex(fnv1a64(read_file(fs::path(CCFORGE_SOURCE_DIR) / kTopo))));
  return out;
}

TEST(SimJson, IsAnObjectWithMetadataAndRowsRoundedAsTheCsv) {
  const std::vector<std::string> args{"sim", "--topo", kTopo, "--coll", "allreduce", "-b", "1K", "-e", "64M", "-f", "8"};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const nlohmann::json out = sim_json_with_metadata(json_args, "ccforge.sim/1");

  const auto csv = csv_times(args);
  ASSERT_EQ(out["rows"].size(), csv.size());
  for (std::size_t i = 0; i < csv.size(); ++i) {
    const nlohmann::json& row = out["rows"][i];
    EXPECT_EQ(row["size_bytes"], csv[i].first);
    EXPECT_EQ(row["time_us"].get<double>(), std::stod(csv[i].second)) << "size " << csv[i].first;
    for (const char* key : {"time_us", "algbw_gbs", "busbw_gbs"})
      EXPECT_TRUE(is_thousandths(row[key].get<double>())) << key << " = " << row[key];
  }
}

// --coll with a list: each collective's rows as its own run prints them, in --coll's order, each with a
// `collective` member; a single collective's rows have none (its output is unchanged).
TEST(SimJson, ACollectiveListHasTheRowsOfEachCollective) {
  const std::vector<std::string> sizes{"-b", "1K", "-e", "4M", "-f", "16", "--format", "json"};
  auto args = [&](const std::string& coll) {
    std::vector<std::string> a{"sim", "--topo", kTopo, "--coll", coll};
    a.insert(a.end(), sizes.begin(), sizes.end());
    return a;
  };
  const nlohmann::json listed = sim_json_with_metadata(args("allgather,broadcast"), "ccforge.sim/1");
  nlohmann::json expected = nlohmann::json::array();
  for (const std::string coll : {"allgather", "broadcast"}) {
    const nlohmann::json alone = nlohmann::json::parse(run_ccforge(args(coll)));
    for (nlohmann::json row : alone["rows"]) {
      EXPECT_FALSE(row.contains("collective")) << row;
      row["collective"] = coll;
      expected.push_back(row);
    }
  }
  EXPECT_EQ(listed["rows"].size(), 8u);  // 1K, 16K, 256K, 4M for each
  EXPECT_EQ(listed["rows"], expected);
}

// The CSV of a list: a leading collective column, then each collective's CSV rows as a run of it alone.
TEST(SimCsv, ACollectiveListHasTheRowsOfEachCollective) {
  auto csv = [](const std::string& coll) {
    return run_ccforge({"sim", "--topo", kTopo, "--coll", coll, "-b", "1K", "-e", "4M", "-f", "16", "--format", "csv"});
  };
  const std::string header = "size_bytes,count,dtype,time_us,algbw_gbs,busbw_gbs,algorithm\n";
  std::string expected = "collective," + header;
  for (const std::string coll : {"reduce", "allreduce"}) {
    const std::string alone = csv(coll);
    ASSERT_TRUE(alone.starts_with(header)) << alone;
    std::istringstream rows(alone.substr(header.size()));
    for (std::string row; std::getline(rows, row);) expected += coll + "," + row + "\n";
  }
  EXPECT_EQ(csv("reduce,allreduce"), expected);
}

// The trace of `ARGS --trace FILE --trace-size SIZE`: every rank a named process, every slice its
// arguments, and the last slice ending at the time the CSV reports for SIZE.
// The Perfetto trace of `ARGS --trace FILE --trace-size SIZE`.
nlohmann::json sim_trace(std::vector<std::string> args, const std::string& size) {
  const fs::path file = fs::temp_directory_path() / ("ccforge_sim_trace_" + std::to_string(::getpid()) + ".json");
  args.insert(args.end(), {"--trace", file.string(), "--trace-size", size});
  run_ccforge(args);
  const nlohmann::json trace = nlohmann::json::parse(read_file(file));
  fs::remove(file);
  return trace;
}

void expect_trace_matches_table(std::vector<std::string> args, const std::string& size, std::uint64_t bytes) {
  const nlohmann::json trace = sim_trace(args, size);

  std::vector<std::string> process_names(8);
  double end_us = 0.0;
  std::size_t slices = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"].get<int>() >= 1 && e["pid"].get<int>() <= 8)
      process_names[e["pid"].get<std::size_t>() - 1] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    ++slices;
    ASSERT_TRUE(e.contains("args")) << e;
    EXPECT_TRUE(e["args"].contains("protocol") && e["args"].contains("wire_bytes")) << e;
    EXPECT_FALSE(e["args"]["protocol"].get<std::string>().empty()) << e;
    end_us = std::max(end_us, e["ts"].get<double>() + e["dur"].get<double>());
  }
  EXPECT_GT(slices, 8u);
  for (int rank = 0; rank < 8; ++rank)
    EXPECT_EQ(process_names[static_cast<std::size_t>(rank)], "rank " + std::to_string(rank) + " (H100 SXM)");

  for (const auto& [row_bytes, time_us] : csv_times(args))
    if (row_bytes == bytes) {
      EXPECT_NEAR(end_us, std::stod(time_us), 0.01) << "size " << size;
      return;
    }
  ADD_FAILURE() << "no CSV row of " << bytes << " bytes";
}

TEST(SimTrace, EndsAtTheReportedTimeWithTheHostLaunch) {
  // -g 8: one thread launches on all eight GPUs, so small calls are bound by the host launch.
  expect_trace_matches_table({"sim", "--topo", kTopo, "--coll", "allreduce", "-b", "1K", "-e", "1M", "-g", "8"}, "1K", 1024);
}

TEST(SimTrace, EndsAtTheReportedTimeWithTheBaseLatency) {
  expect_trace_matches_table({"sim", "--topo", kTopo, "--coll", "allreduce", "-b", "1K", "-e", "1M"}, "64K", 65536);
}

TEST(SimTrace, TracesAnMscclAlgorithm) {
  expect_trace_matches_table({"sim", "--topo", "data/topologies/ndv5.xml", "--coll", "allgather", "--algo",
                              "tests/data/msccl/msccl_ndv5_ag-1m.xml", "-b", "1M", "-e", "4M"},
                             "2M", 2097152);
}

// Transfer slices name the rank they go to, MSCCL steps the chunk they move (issue 17).
TEST(SimTrace, MscclSlicesNameTheirPeerAndChunk) {
  const nlohmann::json trace = sim_trace({"sim", "--topo", "data/topologies/ndv5.xml", "--coll", "allgather", "--algo",
                                          "tests/data/msccl/msccl_ndv5_ag-1m.xml", "-b", "1M", "-e", "1M"},
                                         "1M");
  std::size_t with_peer = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || !e["args"].contains("peer")) continue;
    ++with_peer;
    const int peer = e["args"]["peer"];
    EXPECT_TRUE(peer >= 0 && peer < 8 && peer != e["args"]["rank"].get<int>()) << e;
    ASSERT_TRUE(e["args"].contains("chunk")) << e;
    EXPECT_GE(e["args"]["chunk"].get<int>(), 0) << e;
  }
  EXPECT_GE(with_peer, 7u * 8u);  // every rank sends its chunk to the seven others at least
}

// -r: NCCL's gather sends every rank's share to the root, so every transfer's peer is the root.
TEST(SimTrace, GatherSendsToTheRoot) {
  const nlohmann::json trace =
      sim_trace({"sim", "--topo", "data/topologies/ndv5.xml", "--coll", "gather", "-r", "5", "-b", "1M", "-e", "1M"}, "1M");
  std::size_t transfers = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || !e["args"].contains("peer")) continue;
    ++transfers;
    EXPECT_EQ(e["args"]["peer"], 5) << e;
  }
  EXPECT_GE(transfers, 7u);
}

// -o: no model charges one operator more than another.
TEST(SimJson, TheReductionOperatorDoesNotChangeTheTime) {
  const std::vector<std::string> args{"sim", "--topo", kTopo, "--coll", "allreduce", "-b", "1K", "-e", "64M", "-f", "64"};
  const auto sum = csv_times(args);
  for (const char* op : {"prod", "avg"}) {
    std::vector<std::string> with_op = args;
    with_op.insert(with_op.end(), {"-o", op});
    EXPECT_EQ(csv_times(with_op), sum) << op;
  }
}

// `sim --explain --format json` carries the metadata `sim --format json` does, then the sizes.
TEST(SimJson, ExplainCarriesTheSameMetadata) {
  const std::vector<std::string> args{"sim", "--topo", kTopo, "--coll", "allreduce", "-b", "1K", "-e", "1M", "-f", "32", "--explain", "--format", "json"};
  const nlohmann::json out = sim_json_with_metadata(args, "ccforge.sim.explain/1");
  EXPECT_EQ(out["sizes"].size(), 3u);  // 1K, 32K, 1M
}

TEST(TuneReport, CarriesMetadataAndStillCarriesOver) {
  const fs::path out = fs::temp_directory_path() / ("ccforge_tune_report_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string topo = "data/topologies/ndv5.xml";
  for (const char* coll : {"allgather", "allreduce"})
    run_ccforge({"tune", "--topo", topo, "--coll", coll, "-b", "1K", "-e", "8K", "--out", out.string()});
  const nlohmann::json report = nlohmann::json::parse(read_file(out / "report.json"));
  fs::remove_all(out);
  const nlohmann::json& m = report["metadata"];
  EXPECT_EQ(m["schema"], "ccforge.tune.report/1");
  EXPECT_EQ(m["command"].back(), out.string());
  EXPECT_EQ(m["command"][5], "allreduce");
  ASSERT_EQ(m["inputs"].size(), 1u);
  EXPECT_EQ(m["inputs"][0]["fnv1a64"], fnv1a64_hex(fnv1a64(read_file(fs::path(CCFORGE_SOURCE_DIR) / topo))));
  // The second tune read the first one's report back and carried allgather over.
  EXPECT_EQ(report["carried_over"], nlohmann::json({"allgather"}));
  EXPECT_EQ(report["collectives"].size(), 2u);
}

}  // namespace
}  // namespace ccforge
