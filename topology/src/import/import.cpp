// `topo import`: recognises the input by its text and hands it to its reader; writes the <cluster> file.
#include "importers.hpp"

#include <fmt/core.h>
#include <pugixml.hpp>

#include <sstream>

namespace ccforge::topo {
namespace {

enum class InputKind { NcclXml, NvidiaSmi, RocmSmi };

InputKind recognise(const TextInput& in) {
  for (int n = 1; n <= in.size(); ++n) {
    const std::string& line = in.line(n);
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (w.front().front() == '<') return InputKind::NcclXml;
    if (w.front() == "GPU0") return InputKind::NvidiaSmi;
    if (line.find("ROCm System Management Interface") != std::string::npos || line.find("between two GPUs") != std::string::npos) {
      return InputKind::RocmSmi;
    }
  }
  in.fail(in.size(), "neither an NCCL topology dump, nor nvidia-smi topo -m, nor rocm-smi --showtopo output",
          "give NCCL_TOPO_DUMP_FILE's file, or the text `nvidia-smi topo -m` or `rocm-smi --showtopo` printed");
}

}  // namespace

const GpuModel& flag_model(const ImportInputs& inputs) {
  const GpuModel* model = find_gpu_model(inputs.gpu_model);
  if (!model) fail_at("--gpu-model", 0, fmt::format("unknown GPU model \"{}\"", inputs.gpu_model), "use one of: " + known_gpu_models());
  return *model;
}

ImportedNode import_node(const ImportInputs& inputs) {
  const std::string name = inputs.name.empty() ? inputs.input.stem().string() : inputs.name;
  const TextInput in(inputs.input);
  const InputKind kind = recognise(in);
  if (kind == InputKind::NcclXml) {
    ImportedNode node = import_nccl_dump(inputs, name);
    node.notes.insert(node.notes.begin(), ImportNote{false, fmt::format("{} is an NCCL topology dump", in.file())});
    return node;
  }
  ImportedNode node;
  node.name = name;
  node.notes.push_back({false, fmt::format("{} is {} output", in.file(), kind == InputKind::NvidiaSmi ? "nvidia-smi topo -m" : "rocm-smi --showtopo")});
  const ImportedLayout layout = kind == InputKind::NvidiaSmi ? read_nvidia_smi_matrix(in, inputs, node.notes) : read_rocm_smi_topo(in, inputs, node.notes);
  for (const LayoutNic& nic : layout.nics) node.nic_gbps = std::max(node.nic_gbps, nic.gbps);
  node.node_xml = layout_node_file(name, layout, node.notes);
  return node;
}

std::string cluster_file_text(const ClusterPlan& plan) {
  pugi::xml_document doc;
  doc.append_child(pugi::node_comment)
      .set_value(fmt::format(" {} nodes like {}, written by `ccforge topo import`; the rail-optimized fabric is assumed ", plan.nodes,
                             plan.node_file)
                     .c_str());
  pugi::xml_node c = doc.append_child("cluster");
  c.append_attribute("name") = plan.name.c_str();
  c.append_attribute("nodes") = plan.nodes;
  c.append_attribute("node") = plan.node_file.c_str();
  c.append_attribute("fabric") = "rail-optimized";
  c.append_attribute("transport") = plan.transport.c_str();
  if (plan.nic_speed_gbps > 0) c.append_attribute("nic_speed_gbps") = fmt::format("{:g}", plan.nic_speed_gbps).c_str();
  std::ostringstream text;
  doc.save(text, "  ");
  return text.str();
}

}  // namespace ccforge::topo
