// Lexical rules of the executor's hand-written XML parser that pugixml does not enforce
// (formats.md §1.6): no tabs between elements, one tag per line, double-quoted values of at most
// 255 characters, strict decimal numbers (strtol base 0 would read "010" as octal).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/diag.hpp"

namespace ccforge::ir {

// Maps byte offsets to 1-based lines in O(log n), for files with 10^5 elements.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  int line_of(std::ptrdiff_t offset) const;

 private:
  std::vector<std::size_t> line_starts_;
};

// Rejects tab characters outside comments.
void check_no_tabs(std::string_view text, const std::string& file, const LineIndex& lines);

// Checks the start tag whose name begins at `name_offset`: no line break or tab inside it, values in
// double quotes, each value at most kMaxValueLength characters.
void check_start_tag(std::string_view text, std::size_t name_offset, const std::string& file, const LineIndex& lines);

// Strict decimal integer: optional '-', no leading zeros, no sign on zero, fits in int64.
std::optional<long long> parse_decimal(std::string_view s);

inline constexpr std::size_t kMaxValueLength = 255;  // MAX_STR_LEN of the executor's XML parser (formats.md §1.5)
inline constexpr int kMaxAttributes = 16;             // MAX_ATTR_COUNT: later attributes are ignored

}  // namespace ccforge::ir
