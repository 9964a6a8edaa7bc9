// tune's WorkDivision (search/src/tune/work_division.hpp), the one deal/record/join pattern of candidate
// proving, time floors and simulations: every item is dealt to exactly one process, deals go on where
// the last one ended, and a join journals the other processes' lines and sends this process's.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tune/work_division.hpp"
#include "tune_dirs.hpp"

namespace ccforge::search {
namespace {

// Process `rank` of `size`; all_gather answers the others' parts from `others` (rank order, own slot
// skipped) and remembers what this process sent.
class ScriptedShare final : public WorkShare {
 public:
  ScriptedShare(int rank, int size, std::vector<std::string> others = {})
      : rank_(rank), size_(size), others_(std::move(others)) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> all_gather(const std::string& mine) const override {
    sent = mine;
    std::vector<std::string> parts = others_;
    parts.insert(parts.begin() + rank_, mine);
    return parts;
  }
  mutable std::string sent;

 private:
  int rank_, size_;
  std::vector<std::string> others_;
};

TEST(SearchWorkDivision, AloneEveryItemIsMine) {
  WorkDivision division(nullptr);
  const WorkDivision::Deal d = division.deal(4);
  EXPECT_EQ(d.mine, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(d.theirs.empty());
}

TEST(SearchWorkDivision, EachItemDealtOnceAndDealsGoOn) {
  const std::vector<std::size_t> deals{3, 4, 1, 5};
  std::vector<std::vector<std::set<std::size_t>>> owners(deals.size());  // per deal, per item: ranks
  for (auto& o : owners) o.resize(8);
  for (int r = 0; r < 3; ++r) {
    const ScriptedShare share(r, 3);
    WorkDivision division(&share);
    for (std::size_t n = 0; n < deals.size(); ++n) {
      const WorkDivision::Deal d = division.deal(deals[n]);
      EXPECT_EQ(d.mine.size() + d.theirs.size(), deals[n]);
      for (std::size_t k : d.mine) owners[n][k].insert(static_cast<std::size_t>(r));
    }
  }
  std::size_t item = 0;  // across deals: the deal goes on round-robin
  for (std::size_t n = 0; n < deals.size(); ++n)
    for (std::size_t k = 0; k < deals[n]; ++k, ++item)
      EXPECT_EQ(owners[n][k], (std::set<std::size_t>{item % 3})) << "deal " << n << " item " << k;
}

TEST(SearchWorkDivision, JoinSendsMineAndJournalsTheirs) {
  const Sample other{SimTime::from_us(2.0), {}};
  const ScriptedShare share(1, 2, {CheckpointJournal::line("theirs", other)});
  WorkDivision division(&share);
  const WorkDivision::Deal d = division.deal(2);  // rank 1 of 2: item 1
  ASSERT_EQ(d.mine, (std::vector<std::size_t>{1}));
  const std::filesystem::path dir = fresh_tune_dir("work_division_test", "join");
  std::filesystem::create_directories(dir);
  CheckpointJournal journal(dir / "checkpoint.jsonl", "fp", false, {});
  const Sample mine{SimTime::from_us(1.0), {}};
  division.join(d.mine, [&](std::size_t k) { return CheckpointJournal::line("mine" + std::to_string(k), mine); }, journal);
  EXPECT_EQ(share.sent, CheckpointJournal::line("mine1", mine));
  ASSERT_TRUE(journal.finished().count("theirs"));
  EXPECT_EQ(journal.finished().at("theirs").time, other.time);
  EXPECT_FALSE(journal.finished().count("mine1"));  // this process records its own as it makes them
}

}  // namespace
}  // namespace ccforge::search
