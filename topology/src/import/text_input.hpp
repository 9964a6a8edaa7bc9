// A text file a tool printed (`nvidia-smi topo -m`, `rocm-smi --showtopo`, `ibv_devinfo -v`, ...), held
// as lines so that every complaint names FILE:LINE.
#pragma once

#include "ccforge/common/diag.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ccforge::topo {

class TextInput {
 public:
  explicit TextInput(const std::filesystem::path& path);

  const std::string& file() const { return file_; }
  int size() const { return static_cast<int>(lines_.size()); }
  // Line `n` (1-based), without its end of line.
  const std::string& line(int n) const { return lines_[static_cast<std::size_t>(n - 1)]; }
  [[noreturn]] void fail(int line, std::string problem, std::string fix) const;

 private:
  std::string file_;
  std::vector<std::string> lines_;
};

// Whitespace-separated words of `text` (tabs and runs of spaces alike).
std::vector<std::string> words(std::string_view text);
std::string_view trim(std::string_view text);
// The number after `prefix` when `text` is `prefix` and 1 to `max_digits` digits ("GPU12", "NV18"), else -1.
// (Parsed by hand: std::regex recurses per character and a long pasted line could overflow the stack.)
int numbered(std::string_view text, std::string_view prefix, std::size_t max_digits = 4);

}  // namespace ccforge::topo
