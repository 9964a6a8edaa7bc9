// A generator's program is refused while it is being recorded once one connection already has more
// transfers than a tb may have steps (search/src/program.hpp, Program::record): at 16,384 ranks the
// rest would have cost gigabytes before screen() could say the same.
#include <gtest/gtest.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/ir/executor_facts.hpp"
#include "program.hpp"

namespace ccforge::search {
namespace {

GenRequest allgather(int ranks) {
  GenRequest req;
  req.collective = ir::Collective::AllGather;
  req.ngpus = ranks;
  return req;
}

TEST(SearchProgramScan, RefusesAtTheScanMarkWhenOneConnectionHasTooManyTransfers) {
  const ir::Limits limits;
  const std::size_t mark = 2 * static_cast<std::size_t>(limits.max_steps_per_tb);
  Program prog(allgather(2), "scan_test", 1, 1000, true, mark);
  std::size_t recorded = 0;
  try {
    for (; recorded < 10 * mark; ++recorded) prog.send(in(0, 0), out(1, static_cast<int>(recorded % 1000)), 0);
    FAIL() << "not refused";
  } catch (const DiagError& e) {
    EXPECT_EQ(recorded + 1, mark);  // refused on the op that reached the first mark
    EXPECT_NE(std::string(e.what()).find("more than 64 transfers to rank 1 on channel 0"), std::string::npos) << e.what();
  }
}

TEST(SearchProgramScan, SpreadTransfersPassTheScan) {
  const std::size_t mark = 16;
  Program prog(allgather(64), "scan_test", 1, 64, true, mark);
  // 64 x 63 transfers, one per connection: every scan mark passes, and so does screen().
  for (int r = 0; r < 64; ++r)
    for (int q = 0; q < 64; ++q) {
      if (q != r) {
        EXPECT_NO_THROW(prog.send(in(r, 0), out(q, r), 0));
      }
    }
}

}  // namespace
}  // namespace ccforge::search
