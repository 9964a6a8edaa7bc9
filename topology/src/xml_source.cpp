#include "xml_source.hpp"

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/common/xml_depth.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ccforge::topo {
namespace {

// Real PCI trees nest a few switches: the deepest bundled topology (data/topologies, tests/data/
// topologies, NCCL and Azure dumps) nests 7 elements. 64 leaves room for any machine and keeps the
// recursive readers' stack use small.
constexpr int kMaxXmlDepth = 64;

}  // namespace

XmlSource::XmlSource(const std::filesystem::path& path) : file_(path.string()), text_(read_file(path)) {
  const pugi::xml_parse_result result = doc_.load_buffer(text_.data(), text_.size());
  if (!result) {
    throw DiagError(Diag{{file_, line_at_offset(text_, result.offset)},
                         fmt::format("malformed XML: {}", result.description()),
                         "fix the XML syntax at this line"});
  }
  if (!doc_.document_element()) {
    throw DiagError(Diag{{file_, 1}, "no root element", "the file must hold <system>, <node> or <cluster>"});
  }
  if (const pugi::xml_node deep = first_element_deeper_than(doc_.document_element(), kMaxXmlDepth)) {
    fail(deep, fmt::format("<{}> is nested more than {} elements deep", deep.name(), kMaxXmlDepth),
         "check the file's structure: topologies nest a few PCI switches, cluster and profile files one level");
  }
  check_printable();
}

void XmlSource::check_printable() const {
  pugi::xml_node node = doc_.document_element();
  while (node) {
    for (pugi::xml_attribute a : node.attributes())
      if (first_unprintable(a.value()))
        fail(node, fmt::format("{}=\"{}\" holds a control character or malformed UTF-8", a.name(), printable(a.value())),
             "write attribute values in printable UTF-8");
    if (node.first_child()) {
      node = node.first_child();
      continue;
    }
    while (node && !node.next_sibling()) node = node.parent();
    if (node) node = node.next_sibling();
  }
}

SourceLoc XmlSource::loc(pugi::xml_node node) const {
  return SourceLoc{file_, line_at_offset(text_, node.offset_debug())};
}

void XmlSource::fail(pugi::xml_node node, std::string problem, std::string fix) const {
  throw DiagError(Diag{loc(node), std::move(problem), std::move(fix)});
}

std::string XmlSource::required(pugi::xml_node node, const char* attr) const {
  const pugi::xml_attribute a = node.attribute(attr);
  if (!a) fail(node, fmt::format("<{}> has no attribute '{}'", node.name(), attr), fmt::format("add {}=\"...\"", attr));
  return a.value();
}

namespace {

template <typename T>
std::optional<T> parse_whole(std::string_view text, int base = 10) {
  T value{};
  const char* end = text.data() + text.size();
  std::from_chars_result r{};
  if constexpr (std::is_floating_point_v<T>) {
    r = std::from_chars(text.data(), end, value);
  } else {
    r = std::from_chars(text.data(), end, value, base);
  }
  if (text.empty() || r.ec != std::errc{} || r.ptr != end) return std::nullopt;
  return value;
}

}  // namespace

int XmlSource::integer(pugi::xml_node node, const char* attr, std::optional<int> fallback) const {
  if (!node.attribute(attr) && fallback) return *fallback;
  const std::string text = required(node, attr);
  const auto value = parse_whole<int>(text);
  if (!value) fail(node, fmt::format("{}=\"{}\" is not an integer", attr, text), "use a decimal integer");
  return *value;
}

double XmlSource::number(pugi::xml_node node, const char* attr, std::optional<double> fallback) const {
  if (!node.attribute(attr) && fallback) return *fallback;
  const std::string text = required(node, attr);
  const auto value = parse_whole<double>(text);
  if (!value) fail(node, fmt::format("{}=\"{}\" is not a number", attr, text), "use a decimal number");
  if (!std::isfinite(*value)) fail(node, fmt::format("{}=\"{}\" is not a finite number", attr, text), "use a decimal number");
  return *value;
}

std::string NumberRange::text() const { return fmt::format("{} {:g} and <= {:g}", min_exclusive ? ">" : ">=", min, max); }

double XmlSource::number_in(pugi::xml_node node, const char* attr, const NumberRange& range, std::optional<double> fallback) const {
  const double value = number(node, attr, fallback);
  if (!range.contains(value)) {
    fail(node, fmt::format("{}=\"{}\" is out of range", attr, node.attribute(attr).value()), "allowed: " + range.text());
  }
  return value;
}

std::uint32_t XmlSource::hex(pugi::xml_node node, const char* attr) const {
  const std::string text = required(node, attr);
  const bool prefixed = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const auto value = prefixed ? parse_whole<std::uint32_t>(std::string_view(text).substr(2), 16) : std::nullopt;
  if (!value) fail(node, fmt::format("{}=\"{}\" is not a hex number", attr, text), "write it as 0x followed by hex digits");
  return *value;
}

void XmlSource::check_attributes(pugi::xml_node node, std::initializer_list<std::string_view> known) const {
  for (pugi::xml_attribute a : node.attributes()) {
    if (std::find(known.begin(), known.end(), std::string_view(a.name())) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(node, fmt::format("unknown attribute '{}' on <{}>", a.name(), node.name()), "known attributes: " + list);
  }
}

}  // namespace ccforge::topo
