#include "msccl_lexical.hpp"

#include <algorithm>

#include <fmt/core.h>

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

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr const char* kOneTagPerLine = "put the whole tag on one line, attributes separated by spaces";

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

// A byte as a message shows it: itself when printable ASCII, else its code.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return fmt::format("'{}'", c);
  if (c == ' ') return "a space";
  if (c == '\n' || c == '\r') return "a line break";
  return fmt::format("byte 0x{:02x}", u);
}

// What ends a name in mscclXmlGetToken.
bool ends_name(char c) { return c == ' ' || c == '>' || c == '/' || c == '\n' || c == '\r'; }

class ExecutorLexer {
 public:
  ExecutorLexer(std::string_view text, const std::string& file, const LineIndex& lines) : text_(text), file_(file), lines_(lines) {}

  void run() {
    if (text_.starts_with(kUtf8Bom))
      fail(0, "UTF-8 byte order mark: the MSCCL executor's parser needs '<' as the file's first byte", "save the file without a BOM");
    while (true) {
      while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r')) ++pos_;
      if (pos_ == text_.size()) return;
      if (text_[pos_] != '<') {
        if (text_[pos_] == '\t') fail_tab(pos_);
        fail(pos_, fmt::format("{} outside a tag: the MSCCL executor's parser expects '<' here", shown(text_[pos_])),
             "between tags keep only spaces and line breaks");
      }
      tag(pos_++);
    }
  }

 private:
  struct Name {
    std::size_t start = 0;
    std::string_view text;
    char end = 0;  // the byte that ended it; '=' only where a value may follow
  };

  [[noreturn]] void fail(std::size_t at, std::string problem, std::string fix) const {
    throw DiagError(Diag{{file_, lines_.line_of(static_cast<std::ptrdiff_t>(at))}, std::move(problem), std::move(fix)});
  }
  [[noreturn]] void fail_tab(std::size_t at) const {
    fail(at, "tab character: the MSCCL executor's parser accepts only spaces and newlines", "replace tabs with spaces");
  }

  char next(const char* inside) {
    if (pos_ == text_.size()) fail(pos_, fmt::format("the file ends inside {}", inside), "complete the tag or remove it");
    return text_[pos_++];
  }

  // mscclXmlGetToken: bytes up to ' ', '>', '/', a line break or, where `value_may_follow`, '='.
  Name name(bool value_may_follow, const char* inside) {
    Name n{pos_, {}, 0};
    while (true) {
      const char c = next(inside);
      if (c == '=' && !value_may_follow)
        fail(pos_ - 1, fmt::format("'=' in {}: the MSCCL executor's parser takes it for an attribute there and stops", inside),
             "remove the '=' (a comment needs a space after <!--)");
      if (c == '=' || ends_name(c)) {
        n.end = c;
        break;
      }
      if (c == '\t') fail_tab(pos_ - 1);
    }
    n.text = text_.substr(n.start, pos_ - 1 - n.start);
    if (n.text.size() > kMaxNameLength)
      fail(n.start, fmt::format("a name of {} bytes in {}: the MSCCL executor's parser stops at {}", n.text.size(), inside, kMaxNameLength),
           "shorten it (in a comment, put a space after <!--)");
    return n;
  }

  void tag(std::size_t open) {
    const bool is_comment = text_.substr(pos_).starts_with("!--");
    const Name element = name(false, is_comment ? "a comment's first word" : "an element name");
    if (element.text.starts_with("!--")) return comment(open);
    if (element.text.starts_with("?"))
      fail(open, "XML declaration or processing instruction: the MSCCL executor's parser rejects '<?'", "delete the <?...?> line");
    if (element.text.starts_with("!"))
      fail(open, fmt::format("<{}: the MSCCL executor's parser reads only elements and comments", element.text),
           "delete the DOCTYPE or CDATA section");
    if (element.text.empty() && element.end == '/') return closing_tag();
    if (element.text.empty())
      fail(open, fmt::format("'<' followed by {}: the MSCCL executor's parser needs the element name right after '<'", shown(element.end)),
           "write <name ...>");
    const std::string element_name(element.text);
    char end = element.end;
    for (int slot = 0; end == ' '; ++slot) end = attribute(element_name, slot);
    if (end == '/') {
      const Name rest = name(false, "an empty element's end");
      if (!rest.text.empty() || rest.end != '>')
        fail(rest.start, fmt::format("'/' inside <{}> not followed by '>'", element_name), "end an empty element with \"/>\"");
      return;
    }
    if (end == '\n' || end == '\r')
      fail(pos_ - 1, "line break inside a tag: the MSCCL executor's parser reads one tag per line", kOneTagPerLine);
    if (end != '>')
      fail(pos_ - 1, fmt::format("{} inside <{}>: the MSCCL executor's parser expects a space, '/' or '>' there", shown(end), element_name),
           kOneTagPerLine);
  }

  // mscclXmlSkipComment: after "<!--", up to the first "-->".
  void comment(std::size_t open) {
    const std::size_t end = text_.find("-->", open + 4);
    if (end == std::string_view::npos) fail(open, "unterminated comment", "close it with -->");
    pos_ = end + 3;
  }

  void closing_tag() {
    const Name n = name(false, "a closing tag");
    if (n.end != '>')
      fail(pos_ - 1, fmt::format("{} after </{}: the MSCCL executor's parser needs '>' right after a closing tag's name", shown(n.end), n.text),
           fmt::format("write </{}>", n.text));
  }

  // One slot of mscclXmlGetNode's attribute loop; returns the byte after it.
  char attribute(const std::string& element, int slot) {
    const Name key = name(true, "an attribute name");
    if (key.end != '=') {
      if (!key.text.empty())
        fail(key.start, fmt::format("attribute {} of <{}> has no '=' right after its name: the MSCCL executor's parser reads it as empty", key.text, element),
             fmt::format("write {}=\"...\" with no space around '='", key.text));
      return key.end;  // an empty slot: a double space, or a space before '>' or "/>"
    }
    if (key.text.empty())
      fail(key.start, fmt::format("'=' without a name in <{}>: the MSCCL executor's parser needs name=\"value\" with no space around '='", element),
           "remove the space before '='");
    if (slot >= kMaxAttributes)
      fail(key.start, fmt::format("attribute {} of <{}> is in slot {}: the MSCCL executor's parser ignores all after {} (a double space takes a slot too)",
                                  key.text, element, slot + 1, kMaxAttributes),
           "remove extra spaces or attributes before it");
    const char quote = next("an attribute value");
    if (quote == '\'')
      fail(pos_ - 1, "single-quoted attribute value: the MSCCL executor's parser reads only double quotes", "use double quotes");
    if (quote != '"')
      fail(pos_ - 1, fmt::format("{} after {}= in <{}>: the MSCCL executor's parser needs '\"' right after '='", shown(quote), key.text, element),
           fmt::format("write {}=\"...\" with no space around '='", key.text));
    const std::size_t value_start = pos_;
    for (char c = next("an attribute value"); c != '"'; c = next("an attribute value")) {
      if (c == '\t' || c == '\n' || c == '\r')
        fail(pos_ - 1, fmt::format("{} inside the value of {}: the MSCCL executor's parser keeps it, XML reads a space", c == '\t' ? "tab" : "line break", key.text),
             "write the value on one line without tabs");
      if (c == '&' && !starts_entity(text_.substr(pos_ - 1)))
        fail(pos_ - 1, "bare '&' in an attribute value: not XML, and written back as &amp; it changes the value's length", "write it as &amp;");
    }
    if (pos_ - 1 - value_start > kMaxValueLength)
      fail(pos_ - 1, fmt::format("attribute value longer than {} characters (executor MAX_STR_LEN)", kMaxValueLength), "shorten the value");
    return next("a tag");
  }

  std::string_view text_;
  const std::string& file_;
  const LineIndex& lines_;
  std::size_t pos_ = 0;
};

}  // namespace

void check_executor_lexing(std::string_view text, const std::string& file, const LineIndex& lines) {
  ExecutorLexer(text, file, lines).run();
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
