// write_completed_topology: a partial NCCL file plus its machine description, saved as the ccforge
// <node> wrapper that load_topology reads without flags:
//   <node name="..."><machine gpu_model="..." fabric="..." nic_gbps="..."/><system version="1">...</system></node>
#include "ccforge/topology/topology.hpp"
#include "node_file.hpp"
#include "xml_source.hpp"

#include "ccforge/common/atomic_file.hpp"

#include <fmt/core.h>

#include <string_view>

namespace ccforge::topo {

void write_completed_topology(const std::filesystem::path& path, const std::optional<MachineDescription>& machine,
                              const std::filesystem::path& out) {
  const XmlSource src(path);
  const pugi::xml_node root = src.root();
  const std::string_view kind = root.name();
  if (kind != "system" && kind != "node") {
    src.fail(root, fmt::format("cannot save <{}> as a node topology", kind),
             kind == "cluster" ? "complete the cluster's node file instead" : "give an NCCL <system> or a ccforge <node> file");
  }
  const std::string name = kind == "node" && root.attribute("name") ? root.attribute("name").value() : path.stem().string();
  write_file_atomically(out, node_file_text(name, machine, root.child("machine"), kind == "node" ? root.child("system") : root));
}

}  // namespace ccforge::topo
