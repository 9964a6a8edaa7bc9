// Every real MSCCL file in tests/data/msccl (the whole directory) runs on the host backend with every element correct, at
// sizes that give one tile and several tiles per chunk (3K to 1.5M), in each placement the file allows.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ccforge/executor/executor.hpp"
#include "ccforge/validate/validate.hpp"
#include "source_dir.hpp"

namespace ccforge::validate {
namespace {

const std::filesystem::path kMscclDir = std::filesystem::path(CCFORGE_SOURCE_DIR) / "tests/data/msccl";

class RealAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(RealAlgorithm, HostRunIsCorrectAtEverySize) {
  const Candidate c{ir::read_msccl_xml(kMscclDir / GetParam()), kMscclDir / GetParam()};
  SweepOptions o;
  o.nranks = c.algorithm.ngpus;
  // 3K, 24K, 192K, 1.5M: multiples of 3 so that nchunksperloop = 24 divides them; 1.5M gives the
  // 8-chunk files several 32 KiB LL tiles per chunk.
  o.sizes = size_sweep(3 * 1024, 2 << 20, 8);
  o.iterations = 2;
  o.warmup = 1;
  o.all_sizes = true;
  auto backend = executor::make_host_backend();
  const SweepResult r = run_sweep(*backend, {c}, o);
  int runs = 0;
  for (const Measurement& m : r.runs) {
    if (m.algorithm == "NCCL") continue;
    ++runs;
    EXPECT_EQ(m.error, "") << m.size_bytes;
    EXPECT_EQ(m.wrong, 0) << m.size_bytes << (m.inplace ? " in-place" : " out-of-place");
  }
  EXPECT_GT(runs, 0) << "no size was runnable";
  EXPECT_TRUE(r.broken.empty());
}

// Every element type NCCL reduces (the one DataType that tune -d and sim -d accept too) and every
// reduction, through a reducing algorithm: the host backend's arithmetic against the reference.
TEST(RealAlgorithmTypes, EveryDataTypeAndReductionIsExact) {
  const Candidate c{ir::read_msccl_xml(kMscclDir / "mt_allreduce_rdh_8_LL.xml"), kMscclDir / "mt_allreduce_rdh_8_LL.xml"};
  auto backend = executor::make_host_backend();
  for (DataType t : kDataTypes) {
    for (executor::RedOp op : {executor::RedOp::Sum, executor::RedOp::Prod, executor::RedOp::Min, executor::RedOp::Max, executor::RedOp::Avg}) {
      SweepOptions o;
      o.nranks = c.algorithm.ngpus;
      o.sizes = {3 * 1024 * 8};  // whole 8-byte elements in each of the file's chunks
      o.iterations = 1;
      o.warmup = 0;
      o.all_sizes = true;
      o.dtype = t;
      o.op = op;
      const SweepResult r = run_sweep(*backend, {c}, o);
      ASSERT_FALSE(r.runs.empty()) << to_string(t);
      for (const Measurement& m : r.runs) {
        EXPECT_EQ(m.type, to_string(t));
        EXPECT_EQ(m.error, "") << to_string(t) << " " << executor::to_string(op);
        EXPECT_EQ(m.wrong, 0) << to_string(t) << " " << executor::to_string(op);
      }
    }
  }
}

std::vector<std::string> msccl_files() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kMscclDir))
    if (e.path().extension() == ".xml") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(TestsDataMsccl, RealAlgorithm, ::testing::ValuesIn(msccl_files()), [](const auto& info) {
  std::string name = info.param.substr(0, info.param.size() - 4);
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

}  // namespace
}  // namespace ccforge::validate
