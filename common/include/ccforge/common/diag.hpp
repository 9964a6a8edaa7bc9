// Errors are values that name the place, the problem and the fix: "FILE:LINE: problem (fix)".
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ccforge {

struct SourceLoc {
  std::string file;
  int line = 0;  // 1-based; 0 when the problem has no line (e.g. a file that cannot be opened)
};

struct Diag {
  Diag() = default;
  // A constructor rather than aggregate init: GCC 12 warns falsely (-Wmaybe-uninitialized) on nested
  // brace-initialised std::string members.
  Diag(SourceLoc where, std::string what, std::string how = {})
      : loc(std::move(where)), problem(std::move(what)), fix(std::move(how)) {}

  SourceLoc loc;
  std::string problem;
  std::string fix;  // may be empty when there is nothing to suggest

  std::string str() const {
    // Built by appends: GCC 12 warns falsely (-Wrestrict) on chained std::string operator+.
    std::string out;
    out.append(loc.file);
    if (loc.line > 0) out.append(":").append(std::to_string(loc.line));
    if (!out.empty()) out.append(": ");
    out.append(problem);
    if (!fix.empty()) out.append(" (").append(fix).append(")");
    return out;
  }
};

// Thrown by loaders and builders; the CLI prints what() on one line and exits non-zero.
class DiagError : public std::runtime_error {
 public:
  explicit DiagError(Diag diag) : std::runtime_error(diag.str()), diag_(std::move(diag)) {}
  const Diag& diag() const { return diag_; }

 private:
  Diag diag_;
};

// Throws the one-line diagnostic "FILE:LINE: problem (fix)".
[[noreturn]] inline void fail_at(std::string file, int line, std::string problem, std::string fix = {}) {
  SourceLoc where;
  where.file = std::move(file);
  where.line = line;
  throw DiagError(Diag(std::move(where), std::move(problem), std::move(fix)));
}

// 1-based line number of byte `offset` in `text` (pugixml reports byte offsets).
inline int line_at_offset(std::string_view text, std::ptrdiff_t offset) {
  if (offset < 0) return 0;
  const auto end = std::min(static_cast<std::size_t>(offset), text.size());
  int line = 1;
  for (std::size_t i = 0; i < end; ++i) line += text[i] == '\n';
  return line;
}

}  // namespace ccforge
