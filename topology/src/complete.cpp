#include "complete.hpp"

#include "ccforge/topology/gpu_models.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ccforge::topo {
namespace {

constexpr std::uint32_t kNvSwitchClass = 0x068000;
constexpr const char* kMachineFlags =
    "add --gpu-model \"H100 SXM\" --fabric nvswitch --nic-gbps 400 with your machine's values, "
    "or wrap the file in a ccforge <node> with a <machine> element";

[[noreturn]] void fail(const SourceLoc& loc, std::string problem, std::string fix) {
  throw DiagError(Diag{loc, std::move(problem), std::move(fix)});
}

const GpuModel& machine_model(const MachineDescription& machine, const SourceLoc& loc) {
  const GpuModel* model = find_gpu_model(machine.gpu_model);
  if (!model) fail(loc, fmt::format("unknown GPU model \"{}\"", machine.gpu_model), "use one of: " + known_gpu_models());
  if (machine.fabric != "nvswitch" && machine.fabric != "none") {
    fail(loc, fmt::format("unknown fabric \"{}\"", machine.fabric), "use nvswitch or none");
  }
  if (machine.nvlinks_per_gpu && (*machine.nvlinks_per_gpu < 1 || *machine.nvlinks_per_gpu > model->max_peer_links)) {
    fail(loc, fmt::format("impossible NVLink count {} for {}", *machine.nvlinks_per_gpu, model->name),
         fmt::format("{} has at most {} links", model->name, model->max_peer_links));
  }
  if (machine.nic_speed_gbps && !(*machine.nic_speed_gbps > 0 && *machine.nic_speed_gbps <= kMaxNicGbps)) {
    fail(loc, fmt::format("NIC speed {} Gb/s is out of range", *machine.nic_speed_gbps), fmt::format("allowed: > 0 and <= {:g}", kMaxNicGbps));
  }
  return *model;
}

// Bare GPU/NIC <pci> elements, in bus id order (the order NVML and the IB stack enumerate them).
std::vector<RawPci*> bare_devices(RawTopology& raw, PciRole role) {
  std::vector<RawPci*> out;
  for_each_pci(raw, [&](RawPci& pci) {
    if (pci.role == role && ((role == PciRole::Gpu && !pci.gpu) || (role == PciRole::Nic && !pci.nic))) out.push_back(&pci);
  });
  std::sort(out.begin(), out.end(), [](const RawPci* a, const RawPci* b) { return a->busid < b->busid; });
  return out;
}

void fill_gpus(const std::vector<RawPci*>& gpus, const MachineDescription& machine, const GpuModel& model) {
  const int links = machine.nvlinks_per_gpu.value_or(model.default_peer_links);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    RawGpu gpu;
    gpu.rank = static_cast<int>(i);
    gpu.sm = model.sm;
    gpu.amd = model.amd();
    gpu.model = model.name;
    gpu.loc = gpus[i]->loc;
    if (machine.fabric == "nvswitch" && links > 0) {
      gpu.peer_links.push_back(RawPeerLink{false, "ffffffff:ff:ff.0", links, kNvSwitchClass, gpus[i]->loc});
    }
    gpus[i]->gpu = std::move(gpu);
  }
}

void fill_nics(const std::vector<RawPci*>& nics, const MachineDescription& machine) {
  if (nics.empty()) return;
  if (!machine.nic_speed_gbps || *machine.nic_speed_gbps <= 0) {
    fail(nics.front()->loc, fmt::format("NIC {} has no <nic> and the machine description gives no NIC speed", nics.front()->busid),
         "add --nic-gbps (e.g. 400 for NDR) or nic_gbps=\"...\" to <machine>");
  }
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const int dev = static_cast<int>(i);
    nics[i]->nic = RawNic{{RawNet{fmt::format("mlx5_{}", dev), dev, *machine.nic_speed_gbps * 1000.0, nics[i]->loc}}, nics[i]->loc};
  }
}

// `from_file`: the machine description came from the file's <machine> element, so errors point there.
void fill_partial(RawTopology& raw, const std::optional<MachineDescription>& machine, bool from_file) {
  const std::vector<RawPci*> gpus = bare_devices(raw, PciRole::Gpu);
  const std::vector<RawPci*> nics = bare_devices(raw, PciRole::Nic);
  if (gpus.empty() && nics.empty()) return;
  const RawPci& first = gpus.empty() ? *nics.front() : *gpus.front();
  if (!machine) {
    fail(first.loc, fmt::format("partial NCCL topology: PCI device {} has no <{}> element", first.busid, gpus.empty() ? "nic" : "gpu"),
         kMachineFlags);
  }
  const GpuModel& model = machine_model(*machine, from_file ? raw.machine_loc : first.loc);
  fill_gpus(gpus, *machine, model);
  fill_nics(nics, *machine);
}

void resolve_model(RawGpu& gpu, const std::optional<MachineDescription>& machine) {
  if (!gpu.model.empty() && find_gpu_model(gpu.model)) return;
  const GpuModel* model = nullptr;
  if (gpu.amd) {
    model = gpu_model_for_gcn(gpu.model);
    if (!model) fail(gpu.loc, fmt::format("unsupported AMD GPU gcn=\"{}\"", gpu.model), "ccforge models gfx942 (MI300X)");
  } else if (machine && find_gpu_model(machine->gpu_model) && find_gpu_model(machine->gpu_model)->sm == gpu.sm) {
    model = find_gpu_model(machine->gpu_model);
  } else {
    model = gpu_model_for_sm(gpu.sm);
    if (!model) fail(gpu.loc, fmt::format("unsupported GPU sm=\"{}\"", gpu.sm), "ccforge models sm 70, 80, 90 and 100");
  }
  gpu.model = model->name;
}

void check_peer_links(RawPci& pci, const std::set<std::string>& gpu_busids) {
  RawGpu& gpu = *pci.gpu;
  // VM dumps (e.g. Azure NC A100 v4) list an NVLink bridge as a link to the GPU itself; it reaches no
  // other GPU in the file, so it carries nothing and is dropped, as NCCL's path search ignores it.
  std::erase_if(gpu.peer_links, [&](const RawPeerLink& l) { return l.target == pci.busid; });
  int total = 0;
  for (const RawPeerLink& link : gpu.peer_links) {
    const bool to_gpu = (link.target_class >> 16) == 0x03;
    if (!to_gpu && (link.xgmi || link.target_class != kNvSwitchClass)) {
      fail(link.loc, fmt::format("link to tclass=\"0x{:06x}\" is not supported", link.target_class),
           "ccforge models links to GPUs (0x03xxxx) and, for <nvlink>, to NVSwitch (0x068000)");
    }
    if (to_gpu && !gpu_busids.contains(link.target)) {
      fail(link.loc, fmt::format("link target {} is not a GPU in this file", link.target), "use the busid of one of the file's GPUs");
    }
    total += link.count;
  }
  const GpuModel& model = *find_gpu_model(gpu.model);
  if (total > model.max_peer_links) {
    fail(gpu.loc, fmt::format("impossible link count: GPU {} has {} NVLink/xGMI links", pci.busid, total),
         fmt::format("a {} has at most {}", model.name, model.max_peer_links));
  }
}

void check_gpus(RawTopology& raw, const std::optional<MachineDescription>& machine) {
  std::set<std::string> gpu_busids;
  std::map<int, const RawGpu*> ranks;
  for_each_pci(raw, [&](RawPci& pci) {
    if (!pci.gpu) return;
    gpu_busids.insert(pci.busid);
    resolve_model(*pci.gpu, machine);
    const auto [it, inserted] = ranks.emplace(pci.gpu->rank, &*pci.gpu);
    if (!inserted) {
      fail(pci.gpu->loc, fmt::format("duplicate GPU rank {} (first at line {})", pci.gpu->rank, it->second->loc.line),
           "give every <gpu> its own rank 0..N-1");
    }
  });
  if (ranks.empty()) fail(raw.loc, "the topology has no GPU", "add <pci class=\"0x0302xx\"> devices with <gpu>");
  if (ranks.begin()->first != 0 || ranks.rbegin()->first != static_cast<int>(ranks.size()) - 1) {
    fail(ranks.rbegin()->second->loc, fmt::format("GPU ranks are not 0..{}", ranks.size() - 1), "number the ranks densely from 0");
  }
  for_each_pci(raw, [&](RawPci& pci) {
    if (pci.gpu) check_peer_links(pci, gpu_busids);
  });
}

}  // namespace

void complete(RawTopology& raw, const std::optional<MachineDescription>& machine) {
  const std::optional<MachineDescription>& chosen = machine ? machine : raw.machine;
  const bool from_file = !machine && raw.machine;
  // Checked even when every GPU has its <gpu>: an unknown model or fabric is a typo, not a request to
  // take the model from the GPUs' sm.
  if (chosen) machine_model(*chosen, from_file ? raw.machine_loc : raw.loc);
  fill_partial(raw, chosen, from_file);
  check_gpus(raw, chosen);
}

}  // namespace ccforge::topo
