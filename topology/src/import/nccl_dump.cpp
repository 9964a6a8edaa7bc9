// NCCL's topology dump (NCCL_TOPO_DUMP_FILE), or a partial NCCL file (Azure's), kept as it is inside a
// ccforge <node> whose <machine> names the model the dump's sm stands for.
#include "importers.hpp"

#include "../complete.hpp"
#include "../nccl_xml_reader.hpp"
#include "../node_file.hpp"
#include "../xml_source.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace ccforge::topo {
namespace {

constexpr std::uint32_t kNvSwitchClass = 0x068000;

// A dump's <gpu sm> (or RCCL's gcn) against --gpu-model: a dump from other GPUs is refused at its line.
void check_dump_model(RawTopology& raw, const ImportInputs& inputs, const std::string& file) {
  if (inputs.gpu_model.empty()) return;
  const GpuModel& model = flag_model(inputs);
  for_each_pci(raw, [&](RawPci& pci) {
    if (!pci.gpu) return;
    const RawGpu& gpu = *pci.gpu;
    const bool same = gpu.amd ? model.amd() && (gpu.model.empty() || gpu_model_for_gcn(gpu.model) == &model) : gpu.sm == model.sm;
    if (same) return;
    const std::string what = gpu.amd ? fmt::format("gcn=\"{}\"", gpu.model) : fmt::format("sm {}", gpu.sm);
    fail_at(file, gpu.loc.line, fmt::format("the dump's GPU {} is {}, not {} (sm {})", pci.busid, what, model.name, model.sm),
            "drop --gpu-model, or give the dump of the machine --gpu-model names");
  });
}

}  // namespace

ImportedNode import_nccl_dump(const ImportInputs& inputs, const std::string& name) {
  const XmlSource src(inputs.input);
  const pugi::xml_node root = src.root();
  if (std::string_view(root.name()) != "system") {
    src.fail(root, fmt::format("<{}> is not an NCCL topology dump", root.name()),
             std::string_view(root.name()) == "node" || std::string_view(root.name()) == "cluster"
                 ? "this is already a ccforge file: give it to --topo directly"
                 : "give the file NCCL_TOPO_DUMP_FILE wrote (<system version=\"1\">)");
  }
  RawTopology raw = read_nccl_system(src, root);
  check_dump_model(raw, inputs, src.file());
  int partial = 0;
  for_each_pci(raw, [&](RawPci& pci) { partial += (pci.role == PciRole::Gpu && !pci.gpu) || (pci.role == PciRole::Nic && !pci.nic); });
  std::optional<MachineDescription> given;
  if (!inputs.gpu_model.empty()) {
    given = MachineDescription{inputs.gpu_model, inputs.fabric.value_or("nvswitch"), inputs.nvlinks_per_gpu, inputs.nic_gbps};
  }
  complete(raw, given);

  ImportedNode out;
  out.name = name;
  int gpus = 0, switch_links = 0, peer_links = 0;
  std::string model;
  for_each_pci(raw, [&](RawPci& pci) {
    if (!pci.gpu) return;
    ++gpus;
    model = pci.gpu->model;
    for (const RawPeerLink& l : pci.gpu->peer_links) (l.target_class == kNvSwitchClass ? switch_links : peer_links) += l.count;
  });
  std::vector<double> speeds;
  for_each_pci(raw, [&](RawPci& pci) {
    if (pci.nic) for (const RawNet& net : pci.nic->nets) speeds.push_back(net.speed_mbps / 1000);
  });
  for (const RawCpu& cpu : raw.cpus) {
    for (const RawNic& nic : cpu.nics) for (const RawNet& net : nic.nets) speeds.push_back(net.speed_mbps / 1000);
  }
  out.nic_gbps = speeds.empty() ? 0 : *std::max_element(speeds.begin(), speeds.end());

  MachineDescription machine = given.value_or(MachineDescription{model, switch_links > 0 ? "nvswitch" : "none", std::nullopt, std::nullopt});
  machine.gpu_model = model;
  if (partial == 0) machine.fabric = switch_links > 0 ? "nvswitch" : "none";
  const std::string source = given ? "--gpu-model" : "the dump's <gpu sm>/gcn";
  out.notes.push_back({false, fmt::format("{} GPUs, {} ({}), CPUs and PCIe tree as NCCL dumped them", gpus, model, source)});
  if (partial > 0) {
    out.notes.push_back({true, fmt::format("{} bare GPU/NIC <pci> devices completed as NCCL does at run time: fabric {}, {} NICs at --nic-gbps",
                                           partial, machine.fabric, speeds.size())});
  } else {
    out.notes.push_back({false, fmt::format("{} NVLinks per GPU into NVSwitch, {} to peers (from <nvlink>/<xgmi>)", switch_links / std::max(gpus, 1),
                                            peer_links / std::max(gpus, 1))});
    if (!speeds.empty()) {
      out.notes.push_back({false, fmt::format("{} NIC ports, fastest {:g} Gb/s (from <net speed>{})", speeds.size(), out.nic_gbps,
                                              inputs.nic_gbps ? "; --nic-gbps is for partial files and was not used" : "")});
    }
  }
  out.node_xml = node_file_text(name, machine, pugi::xml_node(), root);
  return out;
}

}  // namespace ccforge::topo
