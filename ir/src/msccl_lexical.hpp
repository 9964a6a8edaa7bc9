// The MSCCL executor's XML lexer, as a check: msccl-executor-nccl reads algorithm files with its own
// hand-written reader (src/misc/msccl/msccl_parser.cc: mscclXmlGetNode, mscclXmlGetToken,
// mscclXmlGetValue, mscclXmlSkipComment; RCCL's copy is the same), not with an XML parser. Before pugixml
// builds the tree, the whole file is read here the way that reader reads it, byte for byte, and the first
// byte it rejects, or reads differently from XML, is one "FILE:LINE: problem (fix)" error (formats.md §1.6).
// Also strict decimal numbers (strtol base 0 would read "010" as octal).
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

// The executor's reader rules, checked over the whole file:
// - between tags only ' ', '\n' and '\r' (no BOM, no tab, no text), and every tag on one line;
// - a name (element, attribute, a comment's first word) ends at ' ', '>', '/' or a line break, holds no
//   '=' where no value may follow, and is at most kMaxNameLength bytes;
// - an attribute is name="value": no space on either side of '=', a double quote right after it (a value
//   opened with ' is read up to the next "), at most kMaxValueLength bytes, no tab or line break inside
//   (XML would read them as spaces, the executor keeps them), no bare '&' (the executor does not decode
//   entities; written back as &amp; it changes the value's length);
// - attributes take slots in order, the empty ones that extra spaces make included; attributes past
//   kMaxAttributes are ignored by the executor, so a named one there is an error;
// - a closing tag is "</name>" exactly, "/>" ends an empty element, "<?" and "<!" other than a comment
//   are not read as XML.
void check_executor_lexing(std::string_view text, const std::string& file, const LineIndex& lines);

// Strict decimal integer: optional '-', no leading zeros, no sign on zero, fits in int64.
std::optional<long long> parse_decimal(std::string_view s);

// msccl-executor-nccl src/include/msccl/msccl_parser.h: MAX_STR_LEN 255, buffers of MAX_STR_LEN + 1.
// mscclXmlGetToken fails when a name reaches MAX_STR_LEN - 1 bytes with its terminator, so names hold
// at most 253; mscclXmlGetValue does not check, and a value over 255 bytes overruns its buffer.
inline constexpr std::size_t kMaxNameLength = 253;
inline constexpr std::size_t kMaxValueLength = 255;
inline constexpr int kMaxAttributes = 16;  // MAX_ATTR_COUNT: later attributes are ignored

}  // namespace ccforge::ir
