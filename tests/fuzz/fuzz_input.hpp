// Shared by the fuzz targets whose readers take a path: each input is written to a file in a private
// folder and read from there, and any DiagError must be one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "ccforge/common/diag.hpp"

namespace ccforge::fuzz {

// This process's folder for inputs, made on first use.
inline const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("ccforge-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::filesystem::path write_input(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::filesystem::path path = work_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// Errors are one line: "FILE:LINE: problem (fix)".
inline void check_one_line(const DiagError& e) {
  if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
}

}  // namespace ccforge::fuzz
