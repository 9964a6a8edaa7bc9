// A directory of outputs is replaced as a whole: written completely beside the target, then swapped
// in with one atomic rename, so that a reader (MSCCL_ALGO_DIR) or a crash sees the old set of files or
// the new one, never a mix of two runs.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "ccforge/common/diag.hpp"

namespace ccforge {

// A fresh, empty directory beside `target` (same file system, so the swap is a rename).
inline std::filesystem::path staging_directory(const std::filesystem::path& target) {
  namespace fs = std::filesystem;
  const fs::path abs = fs::absolute(target).lexically_normal();
  const fs::path parent = abs.has_filename() ? abs.parent_path() : abs.parent_path().parent_path();
  const std::string name = abs.has_filename() ? abs.filename().string() : abs.parent_path().filename().string();
  const fs::path staging = parent / ("." + name + ".new." + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  return staging;
}

// Swaps `staging` into `target`'s place (renameat2 RENAME_EXCHANGE, Linux >= 3.15, glibc >= 2.28) and
// removes what was there; a plain rename where `target` does not exist yet.
inline void replace_directory(const std::filesystem::path& staging, const std::filesystem::path& target) {
  namespace fs = std::filesystem;
  if (!fs::exists(target)) {
    fs::rename(staging, target);
    return;
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw DiagError(Diag{{target.string(), 0}, "cannot swap in the new outputs: " + why,
                         "check that the directory and its parent are writable"});
  }
  fs::remove_all(staging);  // now the old contents
}

}  // namespace ccforge
