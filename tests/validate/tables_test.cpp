// The measured selection table: the fastest correct run per (collective, size), never a broken file,
// NCCL in the same placement, and tune's lower bound carried over (as a percentage of the best time).
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/output/selection_table.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

Measurement run(const std::string& algorithm, const std::string& file, ByteCount size, double us, std::int64_t wrong = 0) {
  Measurement m;
  m.collective = "allreduce";
  m.algorithm = algorithm;
  m.file = file;
  m.protocol = file.empty() ? "" : "LL";
  m.size_bytes = size;
  m.time_us = us;
  m.wrong = wrong;
  return m;
}

// selection.csv's lines, header first.
std::vector<std::string> lines(const SweepResult& r, const std::vector<TunedBound>& bounds) {
  std::vector<std::string> out;
  std::istringstream csv(output::selection_csv(selection_rows(r, bounds)));
  for (std::string line; std::getline(csv, line);) out.push_back(line);
  return out;
}

TEST(Selection, PicksTheFastestCorrectAlgorithmAndSkipsBrokenFiles) {
  SweepResult r;
  r.device = "cuda";
  r.nranks = 8;
  r.runs = {run("NCCL", "", 1024, 10.0), run("ring", "a.xml", 1024, 5.0), run("fast_but_wrong", "b.xml", 1024, 4.0),
            run("ring", "a.xml", 2048, 6.0), run("fast_but_wrong", "b.xml", 2048, 3.0, /*wrong=*/7)};
  r.broken = {"b.xml"};
  const std::vector<TunedBound> bounds{{"allreduce", 1024, 2.5}};
  EXPECT_THAT(lines(r, bounds),
              ::testing::ElementsAre("collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct,"
                                     "lower_bound_us,nccl_algorithm,nccl_channels,expected_error_pct",
                                     "allreduce,1024,10.000,5.000,2.000,ring,LL,50.0,2.500,,,",  // b.xml is broken at 2048: never chosen
                                     "allreduce,2048,,6.000,,ring,LL,,,,,"));                    // no NCCL run at 2048
}

TEST(Selection, FallsBackToNcclWhenNoAlgorithmIsCorrect) {
  SweepResult r;
  r.device = "cuda";
  r.runs = {run("NCCL", "", 4096, 12.5), run("bad", "c.xml", 4096, 1.0, 3)};
  r.broken = {"c.xml"};
  EXPECT_THAT(lines(r, {}), ::testing::ElementsAre(::testing::_, "allreduce,4096,12.500,12.500,1.000,NCCL,,,,,,"));
}

TEST(Selection, HostRunsGetNoBoundPercentage) {
  SweepResult r;
  r.device = "host";
  r.runs = {run("ring", "a.xml", 1024, 900.0)};
  EXPECT_THAT(lines(r, {{"allreduce", 1024, 2.5}}), ::testing::ElementsAre(::testing::_, "allreduce,1024,,900.000,,ring,LL,,,,,"));
}

}  // namespace
}  // namespace ccforge::validate
