// nccl-tuner.conf: what format_table writes parses back unchanged; every malformed table is rejected
// with its line; matching picks the rule of the call's collective, shape and size band.
#include <gtest/gtest.h>

#include "ccforge/tuner/tuner_conf.hpp"

namespace ccforge::tuner_conf {
namespace {

std::vector<Rule> sample_rules() {
  return {{CCF_NCCL_FUNC_ALLREDUCE, 524288, 1048575, 2, 8, CCF_NCCL_ALGO_TREE, CCF_NCCL_PROTO_LL128, 0},
          {CCF_NCCL_FUNC_ALLREDUCE, 1048576, 4194303, 2, 8, CCF_NCCL_ALGO_RING, CCF_NCCL_PROTO_SIMPLE, 32},
          {CCF_NCCL_FUNC_ALLGATHER, 1024, 1024, 1, 8, CCF_NCCL_ALGO_NVLS, CCF_NCCL_PROTO_SIMPLE, 16}};
}

bool same(const Rule& a, const Rule& b) {
  return a.func == b.func && a.min_bytes == b.min_bytes && a.max_bytes == b.max_bytes && a.nodes == b.nodes &&
         a.ranks_per_node == b.ranks_per_node && a.algo == b.algo && a.proto == b.proto && a.channels == b.channels;
}

TEST(TunerConf, WrittenTableParsesBack) {
  const std::string text = format_table(sample_rules(), "two lines\nof comment");
  EXPECT_EQ(text.rfind("ccforge-nccl-tuner 1\n# two lines\n# of comment\n", 0), 0u) << text;
  const ParseResult r = parse_table(text);
  ASSERT_TRUE(r.ok()) << r.error_line << ": " << r.error;
  ASSERT_EQ(r.rules.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(same(r.rules[i], sample_rules()[i])) << i;
}

TEST(TunerConf, EmptyTableHasNoRules) {
  const ParseResult r = parse_table(format_table({}));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.rules.empty());
}

TEST(TunerConf, MatchesCollectiveShapeAndBand) {
  const std::vector<Rule> rules = sample_rules();
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 524288, 2, 8), &rules[0]);
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 1048575, 2, 8), &rules[0]);
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 1048576, 2, 8), &rules[1]);
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 524287, 2, 8), nullptr);   // below every band
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 4194304, 2, 8), nullptr);  // above every band
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 524288, 4, 8), nullptr);   // other node count
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_ALLREDUCE, 524288, 2, 4), nullptr);   // other ranks per node
  EXPECT_EQ(match(rules, CCF_NCCL_FUNC_REDUCESCATTER, 524288, 2, 8), nullptr);
}

struct Malformed {
  const char* text;
  int line;
  const char* problem;
};

TEST(TunerConf, MalformedTablesNameTheirLine) {
  const Malformed cases[] = {
      {"", 1, "empty table"},
      {"# only a comment\n", 1, "empty table"},
      {"allreduce 1 2 1 8 ring ll 0\n", 1, "first line must be"},
      {"ccforge-nccl-tuner 2\n", 1, "version 2"},
      {"ccforge-nccl-tuner 1\nallreduce 1 2 1 8 ring ll\n", 2, "expected 8 fields, found 7"},
      {"ccforge-nccl-tuner 1\nallsum 1 2 1 8 ring ll 0\n", 2, "unknown collective 'allsum'"},
      {"ccforge-nccl-tuner 1\nallreduce 1 2 1 8 circle ll 0\n", 2, "unknown algorithm 'circle'"},
      {"ccforge-nccl-tuner 1\nallreduce 1 2 1 8 ring ll64 0\n", 2, "unknown protocol 'll64'"},
      {"ccforge-nccl-tuner 1\nallreduce 1 2 1 8 ring ll -1\n", 2, "whole numbers"},
      {"ccforge-nccl-tuner 1\nallreduce 1K 2 1 8 ring ll 0\n", 2, "whole numbers"},
      {"ccforge-nccl-tuner 1\nallreduce 1 99999999999999999999 1 8 ring ll 0\n", 2, "whole numbers"},
      {"ccforge-nccl-tuner 1\nallreduce 5 2 1 8 ring ll 0\n", 2, "min_bytes above max_bytes"},
      {"ccforge-nccl-tuner 1\nallreduce 1 2 0 8 ring ll 0\n", 2, "1 or more"},
      {"ccforge-nccl-tuner 1\nallreduce 1 2 1 8 ring ll 65\n", 2, "MAXCHANNELS"},
      {"ccforge-nccl-tuner 1\n\nallreduce 1 10 1 8 ring ll 0\nallreduce 10 20 1 8 tree ll 0\n", 4, "overlaps"},
  };
  for (const Malformed& c : cases) {
    const ParseResult r = parse_table(c.text);
    EXPECT_FALSE(r.ok()) << c.text;
    EXPECT_TRUE(r.rules.empty()) << c.text;
    EXPECT_EQ(r.error_line, c.line) << c.text;
    EXPECT_NE(r.error.find(c.problem), std::string::npos) << c.text << " -> " << r.error;
  }
}

TEST(TunerConf, SameBandForAnotherShapeOrCollectiveIsNoOverlap) {
  const ParseResult r = parse_table(
      "ccforge-nccl-tuner 1\nallreduce 1 10 1 8 ring ll 0   # trailing comment\nallreduce 1 10 2 8 ring ll 0\n"
      "allgather 1 10 1 8 ring ll 0\n");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.rules.size(), 3u);
}

}  // namespace
}  // namespace ccforge::tuner_conf
