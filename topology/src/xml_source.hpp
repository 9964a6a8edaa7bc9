// An XML file held with its text, so that every element can be turned into "FILE:LINE".
#pragma once

#include "ccforge/common/diag.hpp"

#include <pugixml.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace ccforge::topo {

// The values an attribute may take: [min, max], or (min, max] when min_exclusive (speeds, sizes).
struct NumberRange {
  double min;
  double max;
  bool min_exclusive = false;
  bool contains(double v) const { return (min_exclusive ? v > min : v >= min) && v <= max; }
  std::string text() const;  // "> 0 and <= 100000"
};

class XmlSource {
 public:
  // Reads and parses `path`; malformed XML is a DiagError at the parser's line.
  explicit XmlSource(const std::filesystem::path& path);
  XmlSource(const XmlSource&) = delete;
  XmlSource& operator=(const XmlSource&) = delete;

  pugi::xml_node root() const { return doc_.document_element(); }
  const std::string& file() const { return file_; }
  SourceLoc loc(pugi::xml_node node) const;
  [[noreturn]] void fail(pugi::xml_node node, std::string problem, std::string fix) const;

  // Attribute accessors that report the element's line on a missing or malformed value.
  std::string required(pugi::xml_node node, const char* attr) const;
  int integer(pugi::xml_node node, const char* attr, std::optional<int> fallback = std::nullopt) const;
  // Finite numbers only: "nan" and "inf" are malformed values, not numbers.
  double number(pugi::xml_node node, const char* attr, std::optional<double> fallback = std::nullopt) const;
  // number() inside `range`; the message echoes the value and the range.
  double number_in(pugi::xml_node node, const char* attr, const NumberRange& range,
                   std::optional<double> fallback = std::nullopt) const;
  std::uint32_t hex(pugi::xml_node node, const char* attr) const;
  // For ccforge's own elements: an attribute outside `known` is a typo, reported with the known names.
  void check_attributes(pugi::xml_node node, std::initializer_list<std::string_view> known) const;

 private:
  // Attribute values become names in generated files and terminal lines: a control character (&#10;,
  // &#27;) or malformed UTF-8 in any of them is refused at its element's line.
  void check_printable() const;

  std::string file_;
  std::string text_;
  pugi::xml_document doc_;
};

}  // namespace ccforge::topo
