// The selection table's CSV and Markdown forms: written rows read back equal (to the precision each
// form carries), tables of earlier versions still read, and a malformed table is one error at its line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/output/selection_table.hpp"

namespace ccforge::output {
namespace {

std::vector<SelectionRow> rows() {
  SelectionRow tuned{ir::Collective::AllReduce, 1024, 13.963, 7.502, "direct_c1_i4_k8_LL", ir::Protocol::LL, 5.657,
                     NcclBaseline{ir::NcclAlgo::Ring, ir::Protocol::LL, 16}, 6.7};
  SelectionRow kept{ir::Collective::AllReduce, 4u << 20, 49.93, 49.93, "NCCL", ir::Protocol::Simple, 25.465,
                    NcclBaseline{ir::NcclAlgo::Nvls, ir::Protocol::Simple, 16}, std::nullopt};
  SelectionRow measured{ir::Collective::AllGather, 3u << 20, std::nullopt, 900.0, "ring, quoted", ir::Protocol::LL128,
                        std::nullopt, std::nullopt, std::nullopt};
  return {tuned, kept, measured};
}

TEST(SelectionTable, CsvRoundTrips) {
  const std::string csv = selection_csv(rows());
  EXPECT_THAT(csv, ::testing::HasSubstr("\nallreduce,1024,13.963,7.502,1.861,direct_c1_i4_k8_LL,LL,75.4,5.657,ring/LL,16,6.7\n"));
  EXPECT_THAT(csv, ::testing::HasSubstr("\nallgather,3145728,,900.000,,\"ring, quoted\",LL128,,,,,\n"));
  EXPECT_EQ(read_selection_csv(csv, "selection.csv"), rows());
}

TEST(SelectionTable, MarkdownRoundTripsWhatItShows) {
  const std::string md = "# title\n\nprose | with a bar\n" + selection_markdown(rows()) + "\n## Broken\n\n- x.xml\n";
  EXPECT_THAT(md, ::testing::HasSubstr("\n## allgather\n"));
  const std::vector<SelectionRow> read = read_selection_markdown(md, "selection.md");
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(selection_markdown(read), selection_markdown(rows()));  // a fixed point at the table's precision
  EXPECT_EQ(read[1].nccl, (NcclBaseline{ir::NcclAlgo::Nvls, ir::Protocol::Simple, 0}));  // no channel count shown
  EXPECT_EQ(read[2].algorithm, "ring, quoted");
  EXPECT_EQ(read[2].size_bytes, 3u << 20);
  EXPECT_DOUBLE_EQ(*read[0].expected_error_pct, 6.7);
  // Without a channel count the CSV leaves the cell empty and reads it back as unknown.
  const auto via_csv = read_selection_csv(selection_csv(read), "from_md.csv");
  ASSERT_EQ(via_csv.size(), 3u);
  EXPECT_EQ(via_csv[1].nccl, read[1].nccl);
}

// A name with Markdown syntax is one escaped cell, read back as itself (issue 35: a '|' split the row,
// '[x](y)' rendered as a link); one with a control character is refused where it is read back.
TEST(SelectionTable, NamesStayTextInEveryForm) {
  std::vector<SelectionRow> odd = rows();
  odd[2].algorithm = "a|b [x](y) <i>";
  const std::string md = selection_markdown(odd);
  EXPECT_THAT(md, ::testing::HasSubstr("| a\\|b \\[x\\](y) \\<i\\> |"));
  EXPECT_EQ(read_selection_markdown(md, "selection.md")[2].algorithm, "a|b [x](y) <i>");
  try {
    read_selection_csv(selection_csv({}) + "allreduce,1024,,,,ring\x1b[2J,,,,,,\n", "t.csv");
    ADD_FAILURE() << "no error";
  } catch (const DiagError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2: algorithm 'ring\\x1b[2J' holds a control character or malformed UTF-8 (use the table "
                           "ccforge tune or ccforge validate wrote)");
  }
}

TEST(SelectionTable, ReadsTheEightColumnTablesOfEarlierVersions) {
  const auto read = read_selection_csv(
      "collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct\n"
      "allreduce,1024,10.000,5.000,2.000,ring,LL,50.0\n",
      "old.csv");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_DOUBLE_EQ(*read[0].lower_bound_us, 2.5);  // from the percentage, as before
  EXPECT_FALSE(read[0].nccl.has_value());
}

TEST(SelectionTable, MalformedTablesFailAtTheirLine) {
  const auto problem = [](const std::string& text) {
    try {
      read_selection_csv(text, "t.csv");
    } catch (const DiagError& e) {
      return e.diag().loc.file + ":" + std::to_string(e.diag().loc.line) + ": " + e.diag().problem;
    }
    return std::string("no error");
  };
  const std::string header = selection_csv({});
  EXPECT_EQ(problem("size,collective\n"), "t.csv:1: not a selection.csv header (collective,size_bytes,nccl_us,best_us,speedup,...)");
  EXPECT_EQ(problem(header + "allreduce,1024,1x,,,NCCL,,,,,,\n"), "t.csv:2: nccl_us '1x' is not a number");
  EXPECT_EQ(problem(header + "allsum,1024,,,,NCCL,,,,,,\n"), "t.csv:2: unknown collective 'allsum'");
  EXPECT_EQ(problem(header + "allreduce,1024,,,,NCCL,,,,nccl:ring,,\n"), "t.csv:2: NCCL algorithm 'nccl:ring' is not algorithm/protocol");
  EXPECT_EQ(problem(header + "allreduce,1024\n"), "t.csv:2: 2 fields where the header has 12");
}

}  // namespace
}  // namespace ccforge::output
