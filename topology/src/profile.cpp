// Profile files: <profile><param name="link.pcie.latency" value="0.42"/>...</profile>. Calibration writes
// them; loaders apply the entries of their own prefix and reject names they do not know.
#include "ccforge/topology/topology.hpp"
#include "xml_source.hpp"

#include "ccforge/common/atomic_file.hpp"

#include <fmt/core.h>

#include <sstream>

namespace ccforge::topo {
namespace {

// Model parameters are latencies, bandwidths, sizes and ratios, never negative; the upper bound only
// catches typos (the largest default is far below it).
constexpr NumberRange kParamRange{0, 1e12};

}  // namespace

std::vector<ProfileEntry> read_profile(const std::filesystem::path& profile_path) {
  const XmlSource src(profile_path);
  const pugi::xml_node root = src.root();
  if (std::string_view(root.name()) != "profile") {
    src.fail(root, fmt::format("unknown root element <{}>", root.name()), "a profile is <profile><param name=\"...\" value=\"...\"/></profile>");
  }
  std::vector<ProfileEntry> entries;
  for (pugi::xml_node child : root.children()) {
    if (child.type() != pugi::node_element) continue;
    if (std::string_view(child.name()) != "param") {
      src.fail(child, fmt::format("unexpected element <{}> in <profile>", child.name()), "a profile holds only <param name value> elements");
    }
    entries.push_back(ProfileEntry{src.required(child, "name"), src.number_in(child, "value", kParamRange), src.loc(child)});
  }
  return entries;
}

void apply_profile(ParamTable& table, const std::vector<ProfileEntry>& entries, std::string_view prefix) {
  for (const ProfileEntry& e : entries) {
    if (!e.name.starts_with(prefix)) continue;
    if (!table.set(e.name, e.value, fmt::format("profile {}:{}", e.loc.file, e.loc.line))) {
      throw DiagError(Diag{e.loc, fmt::format("unknown parameter name \"{}\"", e.name),
                           "see the parameter tables in topology/README.md and sim/README.md"});
    }
  }
}

void write_profile(const std::vector<const ParamTable*>& tables, const std::filesystem::path& profile_path) {
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child("profile");
  for (const ParamTable* table : tables) {
    for (const Param& p : table->all()) {
      std::string note = fmt::format(" {} ({}) ", p.source, p.unit);
      for (std::size_t at = note.find("--"); at != std::string::npos; at = note.find("--")) note.replace(at, 2, "- ");  // "--" may not appear in XML comments
      root.append_child(pugi::node_comment).set_value(note.c_str());
      pugi::xml_node param = root.append_child("param");
      param.append_attribute("name") = p.name.c_str();
      param.append_attribute("value") = fmt::format("{:.17g}", p.value).c_str();
    }
  }
  std::ostringstream out;
  doc.save(out, "  ");
  write_file_atomically(profile_path, out.str());
}

}  // namespace ccforge::topo
