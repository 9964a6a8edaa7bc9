// Text that came from an input (a name, a path, an attribute value) quoted for where it lands, so that
// it stays text there: a terminal (no escape sequences), Markdown (no markup), a shell script (no
// commands). CSV fields are csv.hpp's; JSON outputs are nlohmann's, which escapes by itself.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ccforge {

namespace detail {

// Length of the well-formed UTF-8 sequence at `at`, or 0 (a stray or overlong byte, a surrogate).
inline std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  const std::size_t n = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (n == 0 || at + n > text.size()) return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  const unsigned char second = byte(at + 1);
  if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) || (lead == 0xF0 && second < 0x90) ||
      (lead == 0xF4 && second > 0x8F))
    return 0;
  return n;
}

// A control character: C0 (newline, ESC, ...), DEL, or C1 (U+0080..U+009F, which some terminals take as
// ESC sequences: U+009B is CSI), given the UTF-8 sequence at `at` of length `n`.
inline bool is_control(std::string_view text, std::size_t at, std::size_t n) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (n == 1) return lead < 0x20 || lead == 0x7F;
  return n == 2 && lead == 0xC2 && static_cast<unsigned char>(text[at + 1]) <= 0x9F;
}

}  // namespace detail

// The byte offset of the first control character or malformed UTF-8 in `text`, if any: what a name
// that reaches a generated file or a terminal may not hold.
inline std::optional<std::size_t> first_unprintable(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t n = detail::utf8_length(text, at);
    if (n == 0 || detail::is_control(text, at, n)) return at;
    at += n;
  }
  return std::nullopt;
}

// `text` with each control character and each byte of malformed UTF-8 written as \xNN, so that printing
// it cannot move the cursor, recolour the terminal or start a new line.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t n = detail::utf8_length(text, at);
    if (n == 0 || detail::is_control(text, at, n)) {
      for (std::size_t i = 0; i < (n == 0 ? 1 : n); ++i) {
        const auto byte = static_cast<unsigned char>(text[at + i]);
        out += "\\x";
        out += "0123456789abcdef"[byte >> 4];
        out += "0123456789abcdef"[byte & 0xF];
      }
      at += n == 0 ? 1 : n;
    } else {
      out.append(text, at, n);
      at += n;
    }
  }
  return out;
}

// printable(text) with Markdown's markup characters backslash-escaped (CommonMark: any ASCII
// punctuation may be), so that it renders as the text itself: no links, emphasis, HTML or table cells.
inline std::string markdown_text(std::string_view text) {
  std::string out;
  for (char c : printable(text)) {
    if (std::string_view("\\`*_[]<>|#!~&{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// Undoes markdown_text's backslash escapes (not printable's \xNN): the text a table's reader gets back.
inline std::string markdown_unescaped(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

// A shell word that expands to exactly `text`: single-quoted, each ' written as '\''.
inline std::string shell_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace ccforge
