// `nvidia-smi topo -m` -> ImportedLayout. The matrix gives, for every pair of devices, NV# (# bonded NVLinks)
// or the PCIe path (legend nvidia-smi prints under it): PIX at most one bridge, PXB several bridges, PHB
// through a host bridge, NODE between host bridges of one NUMA node, SYS across NUMA nodes.
#include "importers.hpp"

#include "tool_outputs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace ccforge::topo {
namespace {

constexpr const char* kPasteFix = "paste the matrix exactly as `nvidia-smi topo -m` prints it, header and every row";
// The bus ids node_layout hands out bound a node's GPUs and NICs; nvidia-smi prints one column each.
constexpr int kMaxDevices = 250;
constexpr const char* kTokens = "nvidia-smi prints X, NV#, PIX, PXB, PHB, NODE or SYS";

enum class Path { Self, NvLink, Pix, Pxb, Phb, Node, Sys };

struct Cell {
  Path path = Path::Sys;
  int nvlinks = 0;
};

struct Matrix {
  int header_line = 0;
  std::vector<std::string> names;  // columns = rows: GPUs first, then NICs
  std::vector<int> row_lines;
  std::vector<std::vector<Cell>> cells;
  std::vector<std::string> cpu_affinity;  // per GPU, "" when absent
  std::vector<std::optional<int>> numa;   // per GPU, from NUMA Affinity
  int gpus = 0;
};

bool is_gpu_name(const std::string& name) { return numbered(name, "GPU") >= 0; }

Cell parse_cell(const TextInput& in, int line, const std::string& token, const std::string& row, const std::string& column,
                bool diagonal, bool gpu_pair) {
  static const std::map<std::string, Path> kPaths{{"PIX", Path::Pix}, {"PXB", Path::Pxb}, {"PHB", Path::Phb},
                                                  {"NODE", Path::Node}, {"SYS", Path::Sys}};
  if (token == "X") {
    if (!diagonal) in.fail(line, fmt::format("'X' between {} and {}", row, column), "X marks a device's own cell only; " + std::string(kPasteFix));
    return {Path::Self, 0};
  }
  if (diagonal) in.fail(line, fmt::format("'{}' in {}'s own cell", token, row), "a device's own cell reads X; " + std::string(kPasteFix));
  if (const int links = numbered(token, "NV", 3); links >= 0) {
    if (!gpu_pair) in.fail(line, fmt::format("'{}' between {} and {}", token, row, column), "NVLinks join GPUs only; " + std::string(kPasteFix));
    if (links < 1) in.fail(line, fmt::format("'{}' between {} and {}", token, row, column), "NV# counts at least one link");
    return {Path::NvLink, links};
  }
  const auto it = kPaths.find(token);
  if (it == kPaths.end()) in.fail(line, fmt::format("unknown link token '{}' between {} and {}", token, row, column), kTokens);
  return {it->second, 0};
}

Matrix read_matrix(const TextInput& in) {
  Matrix mx;
  for (int n = 1; n <= in.size() && mx.header_line == 0; ++n) {
    const std::vector<std::string> w = words(in.line(n));
    if (!w.empty() && w.front() == "GPU0") mx.header_line = n;
  }
  if (mx.header_line == 0) in.fail(1, "no header row starting with GPU0", kPasteFix);
  const std::string& header = in.line(mx.header_line);
  for (const std::string& w : words(header)) {
    if (w == "CPU" || w == "NUMA" || (w == "GPU" && header.find("GPU NUMA ID") != std::string::npos)) break;
    mx.names.push_back(w);
  }
  const bool has_cpu_affinity = header.find("CPU Affinity") != std::string::npos;
  const bool has_numa_affinity = header.find("NUMA Affinity") != std::string::npos;
  while (mx.gpus < static_cast<int>(mx.names.size()) && is_gpu_name(mx.names[static_cast<std::size_t>(mx.gpus)])) ++mx.gpus;
  const int n = static_cast<int>(mx.names.size());
  if (n > kMaxDevices) in.fail(mx.header_line, fmt::format("{} columns: more devices than one node has", n), kPasteFix);
  for (int c = mx.gpus; c < n; ++c) {
    if (is_gpu_name(mx.names[static_cast<std::size_t>(c)])) {
      in.fail(mx.header_line, fmt::format("column {} after a NIC column", mx.names[static_cast<std::size_t>(c)]), kPasteFix);
    }
  }
  for (int r = 0; r < n; ++r) {
    const int line = mx.header_line + 1 + r;
    const std::string& name = mx.names[static_cast<std::size_t>(r)];
    if (line > in.size() || words(in.line(line)).empty() || words(in.line(line)).front() == "Legend:") {
      in.fail(std::min(line, in.size()), fmt::format("the header has {} columns but the matrix ends after {} rows", n, r), kPasteFix);
    }
    const std::vector<std::string> w = words(in.line(line));
    if (w.front() != name) {
      in.fail(line, fmt::format("row '{}' where the header's column {} ('{}') is expected", w.front(), r + 1, name), kPasteFix);
    }
    if (static_cast<int>(w.size()) < n + 1) {
      in.fail(line, fmt::format("row {} has {} of the header's {} columns", name, w.size() - 1, n), kPasteFix);
    }
    std::vector<Cell> row;
    for (int c = 0; c < n; ++c) {
      row.push_back(parse_cell(in, line, w[static_cast<std::size_t>(c + 1)], name, mx.names[static_cast<std::size_t>(c)], r == c,
                               r < mx.gpus && c < mx.gpus));
    }
    mx.cells.push_back(std::move(row));
    mx.row_lines.push_back(line);
    if (r < mx.gpus) {
      std::size_t next = static_cast<std::size_t>(n + 1);
      mx.cpu_affinity.push_back(has_cpu_affinity && next < w.size() ? w[next++] : "");
      std::optional<int> numa;
      if (has_numa_affinity && next < w.size() && numbered(w[next], "") >= 0) numa = numbered(w[next], "");
      mx.numa.push_back(numa);
    } else if (static_cast<int>(w.size()) > n + 1) {
      in.fail(line, fmt::format("row {} has more cells than the header's {} columns", name, n), kPasteFix);
    }
  }
  const int after = mx.header_line + 1 + n;
  if (after <= in.size() && !words(in.line(after)).empty()) {
    const std::string first = words(in.line(after)).front();
    if (first != "Legend:") in.fail(after, fmt::format("row '{}' beyond the header's {} columns", first, n), kPasteFix);
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < r; ++c) {
      const Cell& a = mx.cells[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      const Cell& b = mx.cells[static_cast<std::size_t>(c)][static_cast<std::size_t>(r)];
      if (a.path != b.path || a.nvlinks != b.nvlinks) {
        in.fail(mx.row_lines[static_cast<std::size_t>(r)],
                fmt::format("{} to {} differs from {} to {}", mx.names[static_cast<std::size_t>(r)], mx.names[static_cast<std::size_t>(c)],
                            mx.names[static_cast<std::size_t>(c)], mx.names[static_cast<std::size_t>(r)]),
                "the matrix is symmetric; " + std::string(kPasteFix));
      }
    }
  }
  if (mx.gpus == 0) in.fail(mx.header_line, "no GPU columns", kPasteFix);
  return mx;
}

// "NIC0: mlx5_1" lines under "NIC Legend:"; NICs named in the header stay as they are.
std::map<std::string, std::string> nic_legend(const TextInput& in) {
  std::map<std::string, std::string> legend;
  for (int n = 1; n <= in.size(); ++n) {
    const std::vector<std::string> w = words(in.line(n));
    if (w.size() == 2 && w[0].back() == ':' && numbered(std::string_view(w[0]).substr(0, w[0].size() - 1), "NIC") >= 0) {
      legend[w[0].substr(0, w[0].size() - 1)] = w[1];
    }
  }
  return legend;
}

struct UnionFind {
  explicit UnionFind(int n) : parent(static_cast<std::size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[static_cast<std::size_t>(x)] == x ? x : parent[static_cast<std::size_t>(x)] = find(parent[static_cast<std::size_t>(x)]); }
  void join(int a, int b) { parent[static_cast<std::size_t>(find(a))] = find(b); }
  std::vector<int> parent;
};

const GpuModel& gpu_model(const TextInput& in, const Matrix& mx, const ImportInputs& inputs, std::vector<std::string>& busids,
                          std::vector<ImportNote>& notes) {
  const GpuModel* flag = inputs.gpu_model.empty() ? nullptr : &flag_model(inputs);
  if (!inputs.gpu_query) {
    if (!flag) in.fail(mx.header_line, "nvidia-smi topo -m does not name the GPU model", "pass --gpu-model, or --gpu-query with nvidia-smi -q output");
    notes.push_back({false, fmt::format("{} GPUs, {} (--gpu-model)", mx.gpus, flag->name)});
    return *flag;
  }
  const GpuQuery q = read_gpu_query(*inputs.gpu_query);
  if (flag && flag != q.model) {
    fail_at(q.file, q.first_line, fmt::format("the GPUs are {} ('{}') but --gpu-model says {}", q.model->name, q.product, flag->name),
            "drop --gpu-model or give nvidia-smi -q of this node");
  }
  if (static_cast<int>(q.busids.size()) > mx.gpus) {
    fail_at(q.file, q.first_line, fmt::format("{} GPUs here but {} in {}", q.busids.size(), mx.gpus, in.file()),
            "give nvidia-smi -q and nvidia-smi topo -m of the same node");
  }
  // `nvidia-smi -q -i 0` describes one GPU: its model stands for all, and bus ids come only from a full -q.
  const bool all = static_cast<int>(q.busids.size()) == mx.gpus;
  if (all) busids = q.busids;
  notes.push_back({!all, fmt::format("{} GPUs, {} ('{}' in {}){}", mx.gpus, q.model->name, q.product, q.file,
                                     all ? ", bus ids from there"
                                         : fmt::format(", its model taken for every GPU (it lists {} bus ids)", q.busids.size()))});
  return *q.model;
}

void add_nvlinks(const TextInput& in, const Matrix& mx, ImportedLayout& layout, std::vector<ImportNote>& notes) {
  const GpuModel& model = *layout.model;
  int switched = 0;
  for (int g = 0; g < mx.gpus; ++g) {
    std::vector<std::pair<int, int>> peers;
    int total = 0;
    for (int p = 0; p < mx.gpus; ++p) {
      const Cell& c = mx.cells[static_cast<std::size_t>(g)][static_cast<std::size_t>(p)];
      if (c.path != Path::NvLink) continue;
      if (c.nvlinks > model.max_peer_links) {
        in.fail(mx.row_lines[static_cast<std::size_t>(g)],
                fmt::format("GPU{} shows NV{}; {} has at most {} NVLinks", g, c.nvlinks, model.name, model.max_peer_links),
                "check --gpu-model (or the nvidia-smi -q given) against this node's GPUs");
      }
      peers.emplace_back(p, c.nvlinks);
      total += c.nvlinks;
    }
    LayoutGpu& gpu = layout.gpus[static_cast<std::size_t>(g)];
    // More links than the GPU has: nvidia-smi counts, for each peer, all the links into the NVSwitches
    // that join them.
    if (total > model.max_peer_links) {
      gpu.nvswitch_links = std::max_element(peers.begin(), peers.end(), [](auto a, auto b) { return a.second < b.second; })->second;
      ++switched;
    } else {
      gpu.peer_links = peers;
    }
  }
  if (switched > 0 && switched < mx.gpus) {
    in.fail(mx.header_line, fmt::format("{} of {} GPUs show more NVLinks than they have", switched, mx.gpus),
            "a node's GPUs are either all on NVSwitch or all directly linked; " + std::string(kPasteFix));
  }
  if (switched == mx.gpus) {
    notes.push_back({false, fmt::format("NVSwitch: NV{} to each of {} peers is more links than one {} has ({}), so each GPU's {} links go into "
                                        "NVSwitches", layout.gpus.front().nvswitch_links, mx.gpus - 1, model.name, model.max_peer_links,
                                        layout.gpus.front().nvswitch_links)});
  } else if (std::all_of(layout.gpus.begin(), layout.gpus.end(), [](const LayoutGpu& g) { return g.peer_links.empty(); })) {
    notes.push_back({false, "no NVLinks: the GPUs meet over PCIe"});
  } else {
    notes.push_back({false, "direct NVLinks as NV# counts them per pair (no GPU shows more links than it has, so no NVSwitch)"});
  }
}

}  // namespace

ImportedLayout read_nvidia_smi_matrix(const TextInput& in, const ImportInputs& inputs, std::vector<ImportNote>& notes) {
  const Matrix mx = read_matrix(in);
  const int n = static_cast<int>(mx.names.size());
  ImportedLayout layout;
  std::vector<std::string> busids;
  layout.model = &gpu_model(in, mx, inputs, busids, notes);
  if (layout.model->amd()) in.fail(mx.header_line, fmt::format("{} is an AMD GPU, but this is nvidia-smi output", layout.model->name), "check --gpu-model");
  layout.gpus.resize(static_cast<std::size_t>(mx.gpus));
  for (int g = 0; g < mx.gpus && !busids.empty(); ++g) layout.gpus[static_cast<std::size_t>(g)].busid = busids[static_cast<std::size_t>(g)];

  // NUMA of each GPU: its NUMA Affinity, else one node per distinct CPU Affinity.
  std::vector<int> numa(static_cast<std::size_t>(n), -1);
  const bool all_numa = std::all_of(mx.numa.begin(), mx.numa.end(), [](const auto& v) { return v.has_value(); });
  std::vector<std::string> affinities;
  for (int g = 0; g < mx.gpus; ++g) {
    if (all_numa) {
      numa[static_cast<std::size_t>(g)] = *mx.numa[static_cast<std::size_t>(g)];
      continue;
    }
    const std::string& a = mx.cpu_affinity[static_cast<std::size_t>(g)];
    auto it = std::find(affinities.begin(), affinities.end(), a);
    if (it == affinities.end()) it = affinities.insert(affinities.end(), a);
    numa[static_cast<std::size_t>(g)] = static_cast<int>(it - affinities.begin());
  }
  const std::vector<int> gpu_numa(numa.begin(), numa.begin() + mx.gpus);
  notes.push_back({!all_numa, fmt::format("GPUs {} ({})", group_by_value(gpu_numa, "NUMA"),
                                          all_numa ? "NUMA Affinity column" : "one NUMA node per distinct CPU Affinity")});

  // PCIe switches: devices at PIX or PXB share one; NICs take the NUMA node of a GPU or NIC they reach
  // without crossing sockets.
  UnionFind switches(n);
  bool pxb = false;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < r; ++c) {
      const Path p = mx.cells[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].path;
      if (p == Path::Pix || p == Path::Pxb) switches.join(r, c);
      pxb = pxb || p == Path::Pxb;
    }
  }
  for (int pass = 0; pass < n; ++pass) {
    for (int r = mx.gpus; r < n; ++r) {
      for (int c = 0; c < n && numa[static_cast<std::size_t>(r)] < 0; ++c) {
        const Path p = mx.cells[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].path;
        if (c != r && p != Path::Sys && numa[static_cast<std::size_t>(c)] >= 0) numa[static_cast<std::size_t>(r)] = numa[static_cast<std::size_t>(c)];
      }
    }
  }
  int guessed = 0;
  for (int r = mx.gpus; r < n; ++r) {
    if (numa[static_cast<std::size_t>(r)] < 0) {
      numa[static_cast<std::size_t>(r)] = *std::min_element(gpu_numa.begin(), gpu_numa.end());
      ++guessed;
    }
  }
  if (guessed > 0) {
    notes.push_back({true, fmt::format("{} NIC(s) that reach every GPU only across sockets (SYS) sit on NUMA node {}", guessed,
                                       *std::min_element(gpu_numa.begin(), gpu_numa.end()))});
  }
  std::map<int, int> switch_ids;
  for (int d = 0; d < n; ++d) {
    const int root = switches.find(d);
    bool shared = false;
    for (int o = 0; o < n; ++o) shared = shared || (o != d && switches.find(o) == root);
    if (!shared) continue;
    for (int o = 0; o < n; ++o) {
      if (switches.find(o) == root && numa[static_cast<std::size_t>(o)] != numa[static_cast<std::size_t>(d)]) {
        in.fail(mx.row_lines[static_cast<std::size_t>(d)],
                fmt::format("{} and {} share a PCIe switch but sit on NUMA nodes {} and {}", mx.names[static_cast<std::size_t>(d)],
                            mx.names[static_cast<std::size_t>(o)], numa[static_cast<std::size_t>(d)], numa[static_cast<std::size_t>(o)]),
                "check the NUMA Affinity column; " + std::string(kPasteFix));
      }
    }
    switch_ids.emplace(root, static_cast<int>(switch_ids.size()));
  }
  const auto switch_of = [&](int d) {
    const auto it = switch_ids.find(switches.find(d));
    return it == switch_ids.end() ? -1 : it->second;
  };
  for (int g = 0; g < mx.gpus; ++g) {
    layout.gpus[static_cast<std::size_t>(g)].numa = numa[static_cast<std::size_t>(g)];
    layout.gpus[static_cast<std::size_t>(g)].pcie_switch = switch_of(g);
  }

  const std::map<std::string, std::string> legend = nic_legend(in);
  std::optional<std::map<std::string, NicRate>> rates;
  if (inputs.nic_query) rates = read_nic_rates(*inputs.nic_query);
  const std::optional<double> flag_gbps = inputs.nic_gbps;
  std::string placed;
  for (int r = mx.gpus; r < n; ++r) {
    const std::string& column = mx.names[static_cast<std::size_t>(r)];
    LayoutNic nic;
    nic.name = legend.contains(column) ? legend.at(column) : column;
    nic.numa = numa[static_cast<std::size_t>(r)];
    nic.pcie_switch = switch_of(r);
    if (rates && rates->contains(nic.name)) {
      nic.gbps = rates->at(nic.name).gbps;
    } else if (flag_gbps) {
      nic.gbps = *flag_gbps;
    } else if (rates) {
      in.fail(mx.row_lines[static_cast<std::size_t>(r)], fmt::format("no active port rate for NIC {} in {}", nic.name, inputs.nic_query->string()),
              "give ibv_devinfo -v of the same node, or --nic-gbps");
    } else {
      in.fail(mx.row_lines[static_cast<std::size_t>(r)], fmt::format("no rate for NIC {}: nvidia-smi topo -m shows none", nic.name),
              "pass --nic-gbps (e.g. 400) or --nic-query with ibv_devinfo -v output");
    }
    placed += fmt::format("{}{} {:g}G", placed.empty() ? "" : ", ", nic.name, nic.gbps);
    layout.nics.push_back(std::move(nic));
  }
  if (!layout.nics.empty()) {
    notes.push_back({false, fmt::format("{} NICs: {} ({})", layout.nics.size(), placed,
                                        rates ? "rates from " + inputs.nic_query->string() + (flag_gbps ? ", else --nic-gbps" : "")
                                              : std::string("--nic-gbps"))});
  }
  std::string groups;
  for (const auto& [root, id] : switch_ids) {
    std::string members;
    for (int d = 0; d < n; ++d) {
      if (switches.find(d) != root) continue;
      members += (members.empty() ? "" : " ") + (d < mx.gpus ? mx.names[static_cast<std::size_t>(d)] : layout.nics[static_cast<std::size_t>(d - mx.gpus)].name);
    }
    groups += fmt::format("{}{{{}}}", groups.empty() ? "" : " ", members);
  }
  notes.push_back({false, groups.empty() ? std::string("no PCIe switch shared by two devices (no PIX/PXB): each hangs off its CPU")
                                         : "PCIe switches (PIX/PXB): " + groups});
  if (pxb) notes.push_back({true, "devices at PXB share one PCIe switch (nvidia-smi does not show the bridges between them)"});
  add_nvlinks(in, mx, layout, notes);
  return layout;
}

}  // namespace ccforge::topo
