#include "node_file.hpp"

#include <fmt/core.h>

#include <sstream>

namespace ccforge::topo {

void append_machine(pugi::xml_node node, const MachineDescription& m) {
  pugi::xml_node machine = node.append_child("machine");
  machine.append_attribute("gpu_model") = m.gpu_model.c_str();
  machine.append_attribute("fabric") = m.fabric.c_str();
  if (m.nvlinks_per_gpu) machine.append_attribute("nvlinks_per_gpu") = *m.nvlinks_per_gpu;
  if (m.nic_speed_gbps) machine.append_attribute("nic_gbps") = fmt::format("{:.17g}", *m.nic_speed_gbps).c_str();
}

std::string node_file_text(const std::string& name, const std::optional<MachineDescription>& machine, pugi::xml_node own_machine,
                           pugi::xml_node system) {
  pugi::xml_document doc;
  pugi::xml_node node = doc.append_child("node");
  node.append_attribute("name") = name.c_str();
  if (machine) {
    append_machine(node, *machine);
  } else if (own_machine) {
    node.append_copy(own_machine);
  }
  node.append_copy(system);
  std::ostringstream text;
  doc.save(text, "  ");
  return text.str();
}

}  // namespace ccforge::topo
