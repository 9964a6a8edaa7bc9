#include "ccforge/common/params.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "ccforge/common/atomic_file.hpp"

namespace ccforge {
namespace {

TEST(ParamTable, OverridesKnownNamesOnly) {
  ParamTable t({{"link.nvlink.latency", 0.7, "us", "datasheet"}});
  EXPECT_TRUE(t.set("link.nvlink.latency", 0.9, "profile"));
  EXPECT_DOUBLE_EQ(t.get("link.nvlink.latency"), 0.9);
  EXPECT_EQ(t.find("link.nvlink.latency")->source, "profile");
  EXPECT_FALSE(t.set("link.nvlink.latencyy", 1.0, "profile"));
  EXPECT_THROW(t.get("nope"), std::logic_error);
}

TEST(AtomicFile, WritesAndReplaces) {
  const auto dir = std::filesystem::temp_directory_path() / "ccforge_atomic_test";
  std::filesystem::remove_all(dir);
  const auto file = dir / "sub" / "out.txt";
  write_file_atomically(file, "first");
  write_file_atomically(file, "second");
  EXPECT_EQ(read_file(file), "second");
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1) << "no temporary file may be left behind";
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ReadingAMissingFileNamesIt) {
  try {
    read_file("/nonexistent/ccforge.xml");
    FAIL();
  } catch (const DiagError& e) {
    EXPECT_EQ(e.diag().loc.file, "/nonexistent/ccforge.xml");
  }
}

}  // namespace
}  // namespace ccforge
