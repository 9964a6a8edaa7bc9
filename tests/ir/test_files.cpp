#include "test_files.hpp"

#include <algorithm>
#include "source_dir.hpp"

namespace ccforge::ir::testfiles {
namespace {

std::vector<std::filesystem::path> xml_files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".xml") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::filesystem::path source_dir() { return CCFORGE_SOURCE_DIR; }
std::vector<std::filesystem::path> real_msccl_files() { return xml_files_in(source_dir() / "tests/data/msccl"); }
std::vector<std::filesystem::path> broken_variant_files() { return xml_files_in(source_dir() / "tests/ir/broken"); }

}  // namespace ccforge::ir::testfiles
