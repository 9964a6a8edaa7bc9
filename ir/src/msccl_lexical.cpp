#include "msccl_lexical.hpp"

#include <algorithm>
#include <limits>

namespace ccforge::ir {

LineIndex::LineIndex(std::string_view text) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
}

int LineIndex::line_of(std::ptrdiff_t offset) const {
  if (offset < 0) return 0;
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<std::size_t>(offset));
  return static_cast<int>(it - line_starts_.begin());
}

void check_no_tabs(std::string_view text, const std::string& file, const LineIndex& lines) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, 4, "<!--") == 0) {
      const std::size_t end = text.find("-->", pos + 4);
      if (end == std::string_view::npos) return;  // pugixml reports the unterminated comment
      pos = end + 3;
      continue;
    }
    if (text[pos] == '\t')
      throw DiagError(Diag{{file, lines.line_of(static_cast<std::ptrdiff_t>(pos))},
                           "tab character: the MSCCL executor's parser accepts only spaces and newlines",
                           "replace tabs with spaces"});
    ++pos;
  }
}

namespace {

// "&name;" or "&#digits;" / "&#xhex;" at the start of `s`.
bool starts_entity(std::string_view s) {
  const std::size_t end = s.find(';');
  if (end == std::string_view::npos || end < 2 || end > 10) return false;
  for (std::size_t i = 1; i < end; ++i) {
    const char c = s[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c == '#' && i == 1);
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void check_start_tag(std::string_view text, std::size_t name_offset, const std::string& file, const LineIndex& lines) {
  auto fail = [&](std::size_t at, const char* problem, const char* fix) {
    throw DiagError(Diag{{file, lines.line_of(static_cast<std::ptrdiff_t>(at))}, problem, fix});
  };
  bool in_value = false;
  std::size_t value_start = 0;
  for (std::size_t pos = name_offset; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (in_value) {
      if (c == '&' && !starts_entity(text.substr(pos)))
        fail(pos, "bare '&' in an attribute value: not XML, and written back as &amp; it changes the value's length",
             "write it as &amp;");
      if (c == '"') {
        in_value = false;
        if (pos - value_start > kMaxValueLength)
          fail(pos, "attribute value longer than 255 characters (executor MAX_STR_LEN)", "shorten the value");
      }
      continue;
    }
    if (c == '>') return;
    if (c == '\n' || c == '\r')
      fail(pos, "line break inside a tag: the MSCCL executor's parser reads one tag per line", "put the whole tag on one line");
    if (c == '\'')
      fail(pos, "single-quoted attribute value: the MSCCL executor's parser reads only double quotes",
           "use double quotes");
    if (c == '"') {
      in_value = true;
      value_start = pos + 1;
    }
  }
}

std::optional<long long> parse_decimal(std::string_view s) {
  const bool negative = !s.empty() && s.front() == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  if (digits.size() > 1 && digits.front() == '0') return std::nullopt;  // strtol(.., 0) reads it as octal
  if (negative && digits == "0") return std::nullopt;
  long long value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

}  // namespace ccforge::ir
