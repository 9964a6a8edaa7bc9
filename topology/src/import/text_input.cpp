#include "text_input.hpp"

#include "ccforge/common/atomic_file.hpp"

namespace ccforge::topo {

TextInput::TextInput(const std::filesystem::path& path) : file_(path.string()) {
  const std::string text = read_file(path);
  if (text.find('\0') != std::string::npos) {
    fail_at(file_, 0, "holds NUL bytes, not text", "give the text the tool printed");
  }
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();  // pasted from Windows
    lines_.push_back(std::move(line));
    start = end + 1;
  }
}

void TextInput::fail(int line, std::string problem, std::string fix) const {
  fail_at(file_, line, std::move(problem), std::move(fix));
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t begin = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > begin) out.emplace_back(text.substr(begin, i - begin));
  }
  return out;
}

int numbered(std::string_view text, std::string_view prefix, std::size_t max_digits) {
  if (text.substr(0, prefix.size()) != prefix) return -1;
  const std::string_view digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > max_digits) return -1;
  int value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace ccforge::topo
