// RFC 4180 fields, as ccforge's CSV outputs write and read them: quoted only when they hold a comma or a
// quote. Control characters (a newline, a carriage return, ESC) are written as \xNN (quoting.hpp), so
// that every row stays one line for line-by-line readers and a terminal that shows it.
#pragma once

#include <string>
#include <vector>

#include "ccforge/common/quoting.hpp"

namespace ccforge {

inline std::string csv_field(const std::string& field) {
  const std::string text = printable(field);
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// One line's fields (a carriage return is dropped).
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace ccforge
