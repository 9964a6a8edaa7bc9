// write_completed_topology: a partial NCCL file plus its machine description, saved as the ccforge
// <node> wrapper that load_topology reads without flags:
//   <node name="..."><machine gpu_model="..." fabric="..." nic_gbps="..."/><system version="1">...</system></node>
#include "ccforge/topology/topology.hpp"
#include "xml_source.hpp"

#include "ccforge/common/atomic_file.hpp"

#include <fmt/core.h>

#include <sstream>
#include <string_view>

namespace ccforge::topo {
namespace {

void append_machine(pugi::xml_node node, const MachineDescription& m) {
  pugi::xml_node machine = node.append_child("machine");
  machine.append_attribute("gpu_model") = m.gpu_model.c_str();
  machine.append_attribute("fabric") = m.fabric.c_str();
  if (m.nvlinks_per_gpu) machine.append_attribute("nvlinks_per_gpu") = *m.nvlinks_per_gpu;
  if (m.nic_speed_gbps) machine.append_attribute("nic_gbps") = fmt::format("{:.17g}", *m.nic_speed_gbps).c_str();
}

}  // namespace

void write_completed_topology(const std::filesystem::path& path, const std::optional<MachineDescription>& machine,
                              const std::filesystem::path& out) {
  const XmlSource src(path);
  const pugi::xml_node root = src.root();
  const std::string_view kind = root.name();
  if (kind != "system" && kind != "node") {
    src.fail(root, fmt::format("cannot save <{}> as a node topology", kind),
             kind == "cluster" ? "complete the cluster's node file instead" : "give an NCCL <system> or a ccforge <node> file");
  }
  pugi::xml_document doc;
  pugi::xml_node node = doc.append_child("node");
  const std::string name = kind == "node" && root.attribute("name") ? root.attribute("name").value() : path.stem().string();
  node.append_attribute("name") = name.c_str();
  if (machine) {
    append_machine(node, *machine);
  } else if (const pugi::xml_node own = root.child("machine")) {
    node.append_copy(own);
  }
  node.append_copy(kind == "node" ? root.child("system") : root);
  std::ostringstream text;
  doc.save(text, "  ");
  write_file_atomically(out, text.str());
}

}  // namespace ccforge::topo
