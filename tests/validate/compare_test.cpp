// `ccforge compare`'s library: reading the three kinds of input, the change per size, winner bands that
// moved, the threshold, and one-line errors for malformed or incomparable tables.
#include "ccforge/validate/compare.hpp"

#include <gtest/gtest.h>

#include "diag_message.hpp"

#include <string>

#include "ccforge/common/diag.hpp"
#include "source_dir.hpp"

namespace ccforge::validate {
namespace {
using ccforge::testing::diag_message;

constexpr const char* kHeader =
    "collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct,lower_bound_us,nccl_algorithm,nccl_channels,"
    "expected_error_pct\n";

TimedTable selection(const std::string& rows) { return parse_selection_csv(kHeader + rows, "t.csv"); }

const TimedTable kBefore = selection(
    "allreduce,1024,14.0,7.5,1.9,direct_LL,LL,75.0,5.6,ring/LL,1,6.7\n"
    "allreduce,2048,14.2,7.6,1.9,direct_LL,LL,75.0,5.6,ring/LL,1,6.7\n"
    "allreduce,4096,14.6,14.6,1.0,NCCL,LL,50.0,7.3,ring/LL,1,\n"
    "allgather,1024,10.0,10.0,1.0,NCCL,LL,50.0,5.0,ring/LL,1,\n");

TEST(Compare, SelectionRowsTimeWhatRunsAndNameNcclsChoice) {
  ASSERT_EQ(kBefore.points.size(), 4u);
  EXPECT_EQ(kBefore.kind, TableKind::Selection);
  EXPECT_EQ(kBefore.points[0].collective, "allreduce");
  EXPECT_DOUBLE_EQ(kBefore.points[0].time_us, 7.5);  // best_us, not nccl_us
  EXPECT_EQ(kBefore.points[0].winner, "direct_LL");
  EXPECT_EQ(kBefore.points[2].winner, "NCCL ring/LL");
}

TEST(Compare, EqualTablesChangeNothing) {
  const Comparison c = compare_tables(kBefore, kBefore);
  ASSERT_EQ(c.points.size(), 4u);
  for (const PointChange& p : c.points) EXPECT_DOUBLE_EQ(p.change_pct(), 0.0);
  EXPECT_TRUE(c.moved.empty());
  EXPECT_TRUE(c.slower_than(0.0).empty());
}

TEST(Compare, SlowerSizesAndMovedBands) {
  const TimedTable after = selection(
      "allreduce,1024,14.0,8.0,1.8,twoshot_LL,LL,75.0,5.6,ring/LL,1,6.7\n"    // +6.67 %, moved
      "allreduce,2048,14.2,7.7,1.8,twoshot_LL,LL,75.0,5.6,ring/LL,1,6.7\n"    // +1.3 %, moved the same way
      "allreduce,4096,14.6,14.0,1.0,NCCL,LL,50.0,7.3,tree/LL,1,\n"            // faster, NCCL's choice moved
      "allreduce,8192,15.0,15.0,1.0,NCCL,LL,50.0,7.3,ring/LL,1,\n");           // only after
  const Comparison c = compare_tables(kBefore, after);
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_NEAR(c.points[0].change_pct(), 100.0 * 0.5 / 7.5, 1e-9);
  ASSERT_EQ(c.moved.size(), 2u);
  EXPECT_EQ(c.moved[0].min_bytes, 1024u);
  EXPECT_EQ(c.moved[0].max_bytes, 2048u);
  EXPECT_EQ(c.moved[0].before, "direct_LL");
  EXPECT_EQ(c.moved[0].after, "twoshot_LL");
  EXPECT_EQ(c.moved[1].after, "NCCL tree/LL");
  ASSERT_EQ(c.only_before.size(), 1u);
  EXPECT_EQ(c.only_before[0].collective, "allgather");
  ASSERT_EQ(c.only_after.size(), 1u);
  EXPECT_EQ(c.only_after[0].size_bytes, 8192u);
  // The 3 % default catches 1K (+6.7 %), not 2K (+1.3 %); a 10 % threshold catches nothing.
  ASSERT_EQ(c.slower_than(3.0).size(), 1u);
  EXPECT_EQ(c.slower_than(3.0)[0].size_bytes, 1024u);
  EXPECT_EQ(c.slower_than(1.0).size(), 2u);
  EXPECT_TRUE(c.slower_than(10.0).empty());
}

TEST(Compare, SimCsvSkipsCommentsAndFindsColumnsByName) {
  const TimedTable t = parse_sim_csv(
      "# ccforge sim\nsize_bytes,count,dtype,time_us,algbw_gbs,busbw_gbs,algorithm\n"
      "1048576,524288,half,68.812,15.238,28.572,nccl:nvlstree:Simple\n",
      "s.csv");
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_EQ(t.kind, TableKind::SimCsv);
  EXPECT_EQ(t.points[0].collective, "");
  EXPECT_EQ(t.points[0].size_bytes, 1048576u);
  EXPECT_DOUBLE_EQ(t.points[0].time_us, 68.812);
  EXPECT_EQ(t.points[0].winner, "nccl:nvlstree:Simple");
}

TEST(Compare, MalformedInputIsOneLineAtItsLine) {
  const std::string header = "size_bytes,count,dtype,time_us,algbw_gbs,busbw_gbs,algorithm\n";
  EXPECT_EQ(diag_message([&] { parse_sim_csv(header + "1024,512,half,-1,1,1,x\n", "s.csv"); }),
            "s.csv:2: time_us '-1' is not a time (a finite number of microseconds > 0)");
  EXPECT_EQ(diag_message([&] { parse_sim_csv(header + "1024,512,half,nan,1,1,x\n", "s.csv"); }),
            "s.csv:2: time_us 'nan' is not a time (a finite number of microseconds > 0)");
  EXPECT_EQ(diag_message([&] { parse_sim_csv(header + "1024,512,half,0,1,1,x\n", "s.csv"); }),
            "s.csv:2: time_us '0' is not a time (a finite number of microseconds > 0)");
  EXPECT_EQ(diag_message([&] { parse_sim_csv(header + "1024,512,half,1,inf,1,x\n", "s.csv"); }),
            "s.csv:2: algbw_gbs 'inf' is not a bandwidth (a finite number of GB/s >= 0)");
  for (const char* best : {"nan", "-7.5", "0"})
    EXPECT_EQ(diag_message([&] { selection(std::string("allreduce,1024,14.0,") + best + ",,NCCL,LL,,,ring/LL,1,\n"); }),
              std::string("t.csv:2: best_us ") + best + " is not a time (a finite number of microseconds > 0)");
  EXPECT_EQ(diag_message([&] { parse_sim_csv(header + "1K,512,half,1,1,1,x\n", "s.csv"); }),
            "s.csv:2: size_bytes '1K' is not a size (a whole number of bytes > 0)");
  EXPECT_TRUE(diag_message([&] { parse_sim_csv(header + "1024,512,half,1,1,1\n", "s.csv"); }).starts_with("s.csv:2: 6 fields where the header has 7 ("));
  EXPECT_EQ(diag_message([&] { parse_sim_csv(header + "1024,512,half,1,1,1,x\n1024,512,half,2,1,1,x\n", "s.csv"); }),
            "s.csv:3: size 1024 appears twice (keep one row per collective and size)");
  EXPECT_TRUE(diag_message([&] { parse_sim_csv("a,b\n", "s.csv"); }).starts_with("s.csv:1: not a sim CSV header"));
  EXPECT_TRUE(diag_message([&] { parse_sim_csv("", "s.csv"); }).starts_with("s.csv: no header and no rows ("));
  EXPECT_EQ(diag_message([&] { selection("allreduce,1024,14.0,,,NCCL,LL,,,ring/LL,1,\n"); }),
            "t.csv:2: best_us is empty (compare tables whose every row has a time)");
}

TEST(Compare, IncomparableTablesAreErrors) {
  const TimedTable sim = parse_sim_csv("size_bytes,time_us,algorithm\n1024,5,x\n", "s.csv");
  EXPECT_EQ(diag_message([&] { compare_tables(kBefore, sim); }),
            "s.csv: is a sim CSV but t.csv is a selection table (tune or validate output) (compare two of the same kind)");
  const TimedTable other = selection("alltoall,1024,14.0,7.5,1.9,direct_LL,LL,75.0,5.6,ring/LL,1,6.7\n");
  EXPECT_EQ(diag_message([&] { compare_tables(kBefore, other); }),
            "t.csv: has no collective and size in common with t.csv (compare tables of the same collectives and sizes)");
}

TEST(Compare, ReadsFoldersAndFiles) {
  const std::string dir = std::string(CCFORGE_SOURCE_DIR) + "/tests/validate/compare";
  const TimedTable sim = read_timed_table(dir + "/sim_ndv5_x2.csv");
  EXPECT_EQ(sim.kind, TableKind::SimCsv);
  EXPECT_EQ(sim.points.size(), 6u);
  const TimedTable tune = read_timed_table(std::string(CCFORGE_SOURCE_DIR) + "/tests/data/selection/tune_ndv5.csv");
  EXPECT_EQ(tune.kind, TableKind::Selection);
  EXPECT_EQ(tune.points.size(), 7u);
  EXPECT_NE(diag_message([&] { read_timed_table(dir); }).find("no selection.csv in this folder"), std::string::npos);
}

}  // namespace
}  // namespace ccforge::validate
