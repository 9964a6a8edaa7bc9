// The checker's broken variants (tests/ir/broken, the ones that import: exit=1) run on the host
// backend under `-c 1`: each defect that changes what the algorithm computes, or keeps it from
// finishing, must mark the file broken. Defects that only break an executor limit or leave a
// schedule-dependent race are the checker's to find; the list below names each file's outcome.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "ccforge/executor/executor.hpp"
#include "ccforge/validate/validate.hpp"
#include "source_dir.hpp"

namespace ccforge::validate {
namespace {

const std::filesystem::path kBrokenDir = std::filesystem::path(CCFORGE_SOURCE_DIR) / "tests/ir/broken";

SweepResult sweep(const std::string& file) {
  const Candidate c{ir::read_msccl_xml(kBrokenDir / file), kBrokenDir / file};
  SweepOptions o;
  o.nranks = c.algorithm.ngpus;
  o.sizes = {3 * 1024};
  o.iterations = 1;
  o.warmup = 0;
  o.all_sizes = true;
  auto backend = executor::make_host_backend(executor::ExecOptions{std::chrono::milliseconds(300)});
  return run_sweep(*backend, {c}, o);
}

class CaughtDefect : public ::testing::TestWithParam<std::string> {};

TEST_P(CaughtDefect, MarksTheAlgorithmBroken) {
  const SweepResult r = sweep(GetParam());
  ASSERT_FALSE(r.runs.empty());
  EXPECT_EQ(r.broken.size(), 1u);
  for (const Measurement& m : r.runs) EXPECT_FALSE(m.ok()) << (m.inplace ? "in-place" : "out-of-place");
}

INSTANTIATE_TEST_SUITE_P(CheckerCases, CaughtDefect,
                         ::testing::Values("cnt_mismatch.xml", "dependency_cycle.xml", "double_counted.xml", "hasdep_missing.xml",
                                           "missing_contribution.xml", "missing_receive.xml", "swapped_send_order.xml",
                                           "uninitialised_send.xml", "wrong_destination.xml", "receive_without_peer.xml",
                                           "gather_old_size_convention.xml"),
                         [](const auto& info) { return info.param.substr(0, info.param.size() - 4); });

}  // namespace
}  // namespace ccforge::validate
