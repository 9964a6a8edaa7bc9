// `rocm-smi --showtopo` -> ImportedLayout. Of its tables, "Link Type between two GPUs" (XGMI or PCIE per
// pair) and "Numa Nodes" place the GPUs; rocm-smi lists no NICs and no link counts.
#include "importers.hpp"

#include <fmt/core.h>


namespace ccforge::topo {
namespace {

constexpr const char* kPasteFix = "give the whole output of `rocm-smi --showtopo` as printed";

int find_line(const TextInput& in, std::string_view text) {
  for (int n = 1; n <= in.size(); ++n) {
    if (in.line(n).find(text) != std::string::npos) return n;
  }
  return 0;
}

}  // namespace

ImportedLayout read_rocm_smi_topo(const TextInput& in, const ImportInputs& inputs, std::vector<ImportNote>& notes) {
  const int title = find_line(in, "Link Type between two GPUs");
  if (title == 0) in.fail(in.size(), "no 'Link Type between two GPUs' table", kPasteFix);
  if (inputs.gpu_model.empty()) in.fail(title, "rocm-smi --showtopo does not name the GPU model", "pass --gpu-model, e.g. MI300X");
  ImportedLayout layout;
  layout.model = &flag_model(inputs);
  if (!layout.model->amd()) in.fail(title, fmt::format("{} is an NVIDIA GPU, but this is rocm-smi output", layout.model->name), "check --gpu-model");

  const int header = title + 1;
  std::vector<std::string> columns = header <= in.size() ? words(in.line(header)) : std::vector<std::string>{};
  const int n = static_cast<int>(columns.size());
  for (int c = 0; c < n; ++c) {
    if (columns[static_cast<std::size_t>(c)] != fmt::format("GPU{}", c)) {
      in.fail(header, fmt::format("column '{}' where GPU{} is expected", columns[static_cast<std::size_t>(c)], c), kPasteFix);
    }
  }
  if (n == 0) in.fail(std::min(header, in.size()), "the link type table has no GPU columns", kPasteFix);
  if (n > 250) in.fail(header, fmt::format("{} GPU columns: more than one node has", n), kPasteFix);
  layout.gpus.resize(static_cast<std::size_t>(n));
  int xgmi_pairs = 0;
  for (int r = 0; r < n; ++r) {
    const int line = header + 1 + r;
    const std::vector<std::string> w = line <= in.size() ? words(in.line(line)) : std::vector<std::string>{};
    if (w.empty() || w.front() != fmt::format("GPU{}", r)) {
      in.fail(std::min(line, in.size()), fmt::format("the table has {} columns but row GPU{} is missing", n, r), kPasteFix);
    }
    if (static_cast<int>(w.size()) != n + 1) in.fail(line, fmt::format("row GPU{} has {} of {} cells", r, w.size() - 1, n), kPasteFix);
    for (int c = 0; c < n; ++c) {
      const std::string& t = w[static_cast<std::size_t>(c + 1)];
      if (r == c) {
        if (t != "0") in.fail(line, fmt::format("'{}' in GPU{}'s own cell", t, r), "a GPU's own cell reads 0; " + std::string(kPasteFix));
      } else if (t == "XGMI") {
        // One link per pair: rocm-smi gives no count; an 8-GPU MI300X platform joins every pair by one
        // Infinity Fabric link (AMD Instinct MI300X platform brief).
        layout.gpus[static_cast<std::size_t>(r)].peer_links.emplace_back(c, 1);
        ++xgmi_pairs;
      } else if (t != "PCIE") {
        in.fail(line, fmt::format("unknown link type '{}' between GPU{} and GPU{}", t, r, c), "rocm-smi prints XGMI or PCIE");
      }
    }
    if (static_cast<int>(layout.gpus[static_cast<std::size_t>(r)].peer_links.size()) > layout.model->max_peer_links) {
      in.fail(line, fmt::format("GPU{} has {} xGMI peers; {} has {} links", r, layout.gpus[static_cast<std::size_t>(r)].peer_links.size(),
                                layout.model->name, layout.model->max_peer_links),
              "check --gpu-model against this node's GPUs");
    }
  }
  notes.push_back({false, fmt::format("{} GPUs, {} (--gpu-model), {} GPU pairs on xGMI, the rest through PCIe", n, layout.model->name, xgmi_pairs / 2)});
  if (xgmi_pairs > 0) notes.push_back({true, "one xGMI link per XGMI pair (rocm-smi prints no link count)"});

  std::vector<int> numa(static_cast<std::size_t>(n), -1);
  // "GPU[3]		: (Topology) Numa Node: 0"
  for (int line = 1; line <= in.size(); ++line) {
    const std::vector<std::string> w = words(in.line(line));
    if (w.size() != 6 || w[1] != ":" || w[2] != "(Topology)" || w[3] != "Numa" || w[4] != "Node:" || w[0].back() != ']') continue;
    const int g = numbered(std::string_view(w[0]).substr(0, w[0].size() - 1), "GPU[");
    const int node = w[5] == "-1" ? 0 : numbered(w[5], "");  // -1: no NUMA information, as node 0
    if (g < 0 || node < 0) in.fail(line, fmt::format("unreadable Numa Node line '{}'", trim(in.line(line))), kPasteFix);
    if (g >= n) in.fail(line, fmt::format("GPU[{}] beyond the link table's {} GPUs", g, n), kPasteFix);
    numa[static_cast<std::size_t>(g)] = node;
  }
  const bool known = std::none_of(numa.begin(), numa.end(), [](int v) { return v < 0; });
  for (int& v : numa) v = std::max(v, 0);
  notes.push_back({!known, fmt::format("GPUs {} ({})", group_by_value(numa, "NUMA"), known ? "Numa Nodes table" : "no Numa Node line for some GPUs")});

  const std::optional<double> nic_gbps = inputs.nic_gbps;
  for (int g = 0; g < n; ++g) {
    LayoutGpu& gpu = layout.gpus[static_cast<std::size_t>(g)];
    gpu.numa = numa[static_cast<std::size_t>(g)];
    if (!nic_gbps) continue;
    gpu.pcie_switch = g;
    layout.nics.push_back(LayoutNic{fmt::format("nic{}", g), gpu.numa, g, *nic_gbps});
  }
  notes.push_back({true, nic_gbps ? fmt::format("one {:g} Gb/s NIC per GPU behind the GPU's PCIe switch (--nic-gbps; rocm-smi lists no NICs, "
                                                "MI300X platforms pair each GPU with a NIC)", *nic_gbps)
                                  : std::string("no NICs (rocm-smi lists none; --nic-gbps adds one per GPU)")});
  return layout;
}

}  // namespace ccforge::topo
