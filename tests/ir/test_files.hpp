// Paths and loaders for the ir tests' data files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ccforge::ir::testfiles {

std::filesystem::path source_dir();
std::vector<std::filesystem::path> real_msccl_files();     // tests/data/msccl/*.xml, sorted
std::vector<std::filesystem::path> broken_variant_files();  // tests/ir/broken/*.xml, sorted

}  // namespace ccforge::ir::testfiles
