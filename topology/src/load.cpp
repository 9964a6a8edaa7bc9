// load_topology: the pipeline of named passes. XML -> RawTopology (read_nccl_system, or a ccforge <node>
// wrapper, or a <cluster> of nodes) -> complete() -> build_node()/expand_cluster() -> Topology, whose
// GPUs must all reach each other.
#include "cluster_file.hpp"
#include "complete.hpp"
#include "link_params.hpp"
#include "nccl_xml_reader.hpp"
#include "node_builder.hpp"
#include "topology_impl.hpp"
#include "xml_source.hpp"

#include <fmt/core.h>

#include "ccforge/common/quoting.hpp"

#include <string_view>

namespace ccforge::topo {
namespace {

MachineDescription read_machine(const XmlSource& src, pugi::xml_node node) {
  src.check_attributes(node, {"gpu_model", "fabric", "nvlinks_per_gpu", "nic_gbps"});
  MachineDescription m;
  m.gpu_model = src.required(node, "gpu_model");
  m.fabric = src.required(node, "fabric");
  if (node.attribute("nvlinks_per_gpu")) m.nvlinks_per_gpu = src.integer(node, "nvlinks_per_gpu");
  if (node.attribute("nic_gbps")) m.nic_speed_gbps = src.number_in(node, "nic_gbps", {0, kMaxNicGbps, true});
  return m;
}

// <node name="..."><machine .../><system version="1">...</system></node>: Azure's PCI layout plus what
// NCCL would learn at run time.
RawTopology read_node_wrapper(const XmlSource& src, pugi::xml_node node) {
  src.check_attributes(node, {"name"});
  for (pugi::xml_node child : node.children()) {
    const std::string_view name = child.name();
    if (child.type() == pugi::node_element && name != "machine" && name != "system") {
      src.fail(child, fmt::format("unexpected element <{}> inside <node>", name), "a <node> holds one <machine> and one <system>");
    }
  }
  const pugi::xml_node system = node.child("system");
  if (!system) src.fail(node, "<node> has no <system>", "embed the NCCL topology's <system version=\"1\"> element");
  RawTopology raw = read_nccl_system(src, system);
  if (const pugi::xml_node machine = node.child("machine")) {
    raw.machine = read_machine(src, machine);
    raw.machine_loc = src.loc(machine);
  }
  raw.name = node.attribute("name").value();
  return raw;
}

// A node topology: NCCL <system> or ccforge <node>; never a cluster.
RawTopology read_node_topology(const XmlSource& src, const LoadOptions& options) {
  const std::string_view root = src.root().name();
  RawTopology raw;
  if (root == "system") {
    raw = read_nccl_system(src, src.root());
  } else if (root == "node") {
    raw = read_node_wrapper(src, src.root());
  } else {
    src.fail(src.root(), fmt::format("unknown root element <{}>", root), "ccforge reads an NCCL <system>, a ccforge <node> or <cluster>");
  }
  if (raw.name.empty()) raw.name = std::filesystem::path(src.file()).stem().string();
  complete(raw, options.machine);
  return raw;
}

void check_reachable(const Topology& topology, const SourceLoc& loc) {
  for (int dst = 1; dst < topology.num_gpus(); ++dst) {
    if (topology.route(0, dst).path_class != PathClass::Dis) continue;
    const std::string& name = topology.vertex(topology.gpu(dst).vertex).name;
    throw DiagError(Diag{loc, fmt::format("GPU rank {} ({}) is unreachable from GPU rank 0", dst, name),
                         topology.num_nodes() > 1 ? "every node needs a NIC (<nic> or a 0x02xxxx PCI device) on the fabric"
                                                  : "connect every GPU through <pci> under a <cpu> or through <nvlink>"});
  }
}

Topology make_topology(std::string name, const std::string& file, int nodes, GraphData graph, ParamTable params, const SourceLoc& loc,
                       NetTransport transport = {}) {
  // The name reaches generated files (env.sh, DEPLOY.md, selection.md) and the terminal. An attribute
  // was checked by XmlSource; a name taken from the file's name was not.
  if (first_unprintable(name))
    throw DiagError(Diag{loc, fmt::format("topology name '{}' holds a control character or malformed UTF-8", printable(name)),
                         "rename the file or give the topology a printable name=\"...\""});
  Topology topology(std::make_shared<const Topology::Impl>(std::move(name), file, nodes, std::move(graph), std::move(params), transport));
  check_reachable(topology, loc);
  return topology;
}

}  // namespace

Topology load_topology(const std::filesystem::path& path, const LoadOptions& options) {
  ParamTable params = default_link_params();
  apply_profile(params, options.profile, "link.");
  check_link_ranges(options.profile);
  const LinkConstants constants = bind_link_constants(params);
  const XmlSource src(path);
  GraphData graph;
  if (std::string_view(src.root().name()) == "cluster") {
    const ClusterSpec spec = read_cluster(src, src.root());
    const XmlSource node_src(spec.node_file);
    if (std::string_view(node_src.root().name()) == "cluster") {
      src.fail(src.root(), "a cluster's node file is itself a cluster", "node=\"...\" must name a node topology");
    }
    const RawTopology node = read_node_topology(node_src, options);
    const NetTransport transport = expand_cluster(spec, node, constants, graph);
    return make_topology(spec.name, src.file(), spec.nodes, std::move(graph), std::move(params), spec.loc, transport);
  }
  const RawTopology raw = read_node_topology(src, options);
  build_node(raw, constants, 0, "", graph);
  return make_topology(raw.name, src.file(), 1, std::move(graph), std::move(params), raw.loc);
}

}  // namespace ccforge::topo
