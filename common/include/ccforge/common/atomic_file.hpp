// Outputs are written atomically: to a temporary file beside the target, then renamed over it, so a
// killed run never leaves a half-written file behind.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

#include "ccforge/common/diag.hpp"

namespace ccforge {

inline void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  namespace fs = std::filesystem;
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw DiagError(Diag{{path.string(), 0}, "cannot write file", "check that the directory is writable and the disk not full"});
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw DiagError(Diag{{path.string(), 0}, "cannot replace file: " + ec.message(), "check permissions"});
  }
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DiagError(Diag{{path.string(), 0}, "cannot open file", "check the path"});
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace ccforge
