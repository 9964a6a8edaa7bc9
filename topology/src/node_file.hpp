// The ccforge <node> file: <node name><machine .../><system version="1">...</system></node>, written by
// `topo show --write` (a completed partial file) and `topo import`.
#pragma once

#include "ccforge/topology/topology.hpp"

#include <pugixml.hpp>

#include <optional>
#include <string>

namespace ccforge::topo {

void append_machine(pugi::xml_node node, const MachineDescription& m);

// The file's text; `system` is copied whole. Without `machine`, `own_machine` (a file's <machine>) is
// copied when given.
std::string node_file_text(const std::string& name, const std::optional<MachineDescription>& machine, pugi::xml_node own_machine,
                           pugi::xml_node system);

}  // namespace ccforge::topo
