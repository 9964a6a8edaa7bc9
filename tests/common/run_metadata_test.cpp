// The metadata every machine-readable output carries: FNV-1a 64 against the FNV reference's test
// vectors, and the metadata object built from real files.
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/run_metadata.hpp"

namespace ccforge {
namespace {

namespace fs = std::filesystem;

// Vectors from the FNV reference test suite (http://www.isthe.com/chongo/src/fnv/test_fnv.c, FNV1A_64).
TEST(Fnv1a64, MatchesReferenceVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Fnv1a64, HexIsSixteenLowercaseDigits) {
  EXPECT_EQ(fnv1a64_hex(0xaf63dc4c8601ec8cULL), "af63dc4c8601ec8c");
  EXPECT_EQ(fnv1a64_hex(0x1ULL), "0000000000000001");
}

TEST(RunMetadata, HashesEachInputAndKeepsTheCommandLine) {
  const fs::path dir = fs::temp_directory_path() / ("ccforge_run_metadata_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path a = dir / "a.xml", b = dir / "b.xml";
  std::ofstream(a) << "foobar";
  std::ofstream(b) << "";
  const RunMetadata m = make_run_metadata(kSimJsonSchema, "1.2.3", {"ccforge", "sim", "--topo", a.string()}, {a, b});
  const nlohmann::json j = to_json(m);
  EXPECT_EQ(j["schema"], "ccforge.sim/1");
  EXPECT_EQ(j["ccforge_version"], "1.2.3");
  EXPECT_EQ(j["command"], nlohmann::json({"ccforge", "sim", "--topo", a.string()}));
  ASSERT_EQ(j["inputs"].size(), 2u);
  EXPECT_EQ(j["inputs"][0]["file"], a.string());
  EXPECT_EQ(j["inputs"][0]["fnv1a64"], "85944171f73967e8");
  EXPECT_EQ(j["inputs"][1]["fnv1a64"], "cbf29ce484222325");
  // An input that cannot be read is a one-line input error, not a silent empty hash.
  EXPECT_THROW(make_run_metadata(kSimJsonSchema, "1.2.3", {}, {dir / "missing.xml"}), DiagError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ccforge
