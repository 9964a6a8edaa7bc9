// The measured error table search selects with (search/src/tune/measured_error_cells.inc) is what the
// simulator gives today against the published ND H100 v5 rows: a model change that moves any cell fails
// here until the table is regenerated (its header says how).
#include <gtest/gtest.h>

#include "published_errors.hpp"

namespace ccforge::search {
namespace {

TEST(MeasuredError, TableIsTheSimulatorsErrorOnThePublishedRows) {
  const std::vector<MeasuredError> computed = cells_of(compare_published_ndv5());
  const std::vector<MeasuredError>& table = measured_errors();
  ASSERT_EQ(computed.size(), table.size()) << "regenerate: build/tests/search/measured_error_table";
  for (std::size_t i = 0; i < table.size(); ++i) {
    MeasuredError c = computed[i];
    EXPECT_NEAR(c.worst_pct, table[i].worst_pct, 0.05) << c.source << " " << c.sizes.lo;
    c.worst_pct = table[i].worst_pct;  // the table keeps one decimal
    EXPECT_EQ(c, table[i]) << c.source << " " << c.sizes.lo;
  }
}

}  // namespace
}  // namespace ccforge::search
