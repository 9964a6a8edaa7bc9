// The data of `ccforge topo show`: counts, per-GPU bandwidths, and the GPU x GPU route matrix or, for
// large clusters, its summary by kind of pair (never all N^2 routes, so 1024 GPUs stay fast).
#include "ccforge/topology/topology.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

namespace ccforge::topo {
namespace {

constexpr std::array kVertexKinds{VertexKind::Gpu, VertexKind::NvSwitch, VertexKind::PciSwitch,
                                  VertexKind::Cpu, VertexKind::Nic, VertexKind::NetSwitch};
constexpr std::array kLinkKinds{LinkKind::NvLink, LinkKind::NvSwitch, LinkKind::Xgmi, LinkKind::Pcie,
                                LinkKind::CpuInterconnect, LinkKind::Nic, LinkKind::Network};

std::vector<GpuSummary> node0_gpus(const Topology& t) {
  std::vector<GpuSummary> out;
  for (int r = 0; r < t.gpus_per_node(); ++r) {
    const GpuInfo& g = t.gpu(r);
    out.push_back(GpuSummary{r, t.vertex(g.vertex).name, g.model->name, g.numa, g.nvlink_bandwidth, g.pcie_bandwidth,
                             g.nic_bandwidth, g.nearest_nic ? t.vertex(*g.nearest_nic).name : ""});
  }
  return out;
}

void add_count(std::vector<CountByName>& counts, const std::string& name) {
  auto it = std::find_if(counts.begin(), counts.end(), [&](const CountByName& c) { return c.name == name; });
  if (it == counts.end()) it = counts.insert(counts.end(), CountByName{name, 0});
  ++it->count;
}

// GPU models and NIC line rates over the whole topology, in order of first appearance.
void count_models_and_speeds(const Topology& t, TopologySummary& s) {
  for (int r = 0; r < t.num_gpus(); ++r) add_count(s.gpus_by_model, t.gpu(r).model->name);
  for (std::uint32_t v = 0; v < t.vertices().size(); ++v) {
    if (t.vertices()[v].kind != VertexKind::Nic) continue;
    add_count(s.nics_by_speed, fmt::format("{:g}G", t.nic_speed(VertexId{v}).bytes_per_s * 8e-9));
  }
}

const char* pair_group(const GpuInfo& a, const GpuInfo& b) {
  if (a.node == b.node) return "intra-node";
  return a.local_index == b.local_index ? "inter-node, same local index" : "inter-node, other local index";
}

void add_to(PairGroupSummary& s, const Route& r) {
  if (s.pairs++ == 0) {
    s.min_bottleneck = s.max_bottleneck = r.bottleneck;
    s.min_latency = s.max_latency = r.latency;
    s.best_class = s.worst_class = r.path_class;
    return;
  }
  s.min_bottleneck = std::min(s.min_bottleneck, r.bottleneck);
  s.max_bottleneck = std::max(s.max_bottleneck, r.bottleneck);
  s.min_latency = std::min(s.min_latency, r.latency);
  s.max_latency = std::max(s.max_latency, r.latency);
  s.best_class = std::min(s.best_class, r.path_class);
  s.worst_class = std::max(s.worst_class, r.path_class);
}

// Routes from node 0's GPUs to every GPU, grouped; every node of a cluster is a copy, so node 0 speaks for all.
std::vector<PairGroupSummary> pair_groups(const Topology& t) {
  std::vector<PairGroupSummary> groups;
  for (int src = 0; src < t.gpus_per_node(); ++src) {
    for (int dst = 0; dst < t.num_gpus(); ++dst) {
      if (dst == src) continue;
      const std::string name = pair_group(t.gpu(src), t.gpu(dst));
      auto it = std::find_if(groups.begin(), groups.end(), [&](const PairGroupSummary& g) { return g.group == name; });
      if (it == groups.end()) {
        PairGroupSummary fresh;
        fresh.group = name;
        it = groups.insert(groups.end(), fresh);
      }
      add_to(*it, t.route(src, dst));
    }
  }
  return groups;
}

}  // namespace

TopologySummary summarize(const Topology& t, int full_matrix_max_gpus) {
  TopologySummary s;
  s.name = t.name();
  s.source_file = t.source_file();
  s.num_gpus = t.num_gpus();
  s.num_nodes = t.num_nodes();
  s.gpus_per_node = t.gpus_per_node();
  s.has_nvswitch = t.has_nvswitch();
  for (VertexKind k : kVertexKinds) {
    const auto n = std::count_if(t.vertices().begin(), t.vertices().end(), [&](const Vertex& v) { return v.kind == k; });
    s.vertices_by_kind.push_back(CountByName{to_string(k), static_cast<int>(n)});
  }
  for (LinkKind k : kLinkKinds) {
    const auto n = std::count_if(t.links().begin(), t.links().end(), [&](const Link& l) { return l.kind == k; });
    s.links_by_kind.push_back(CountByName{to_string(k), static_cast<int>(n)});
  }
  count_models_and_speeds(t, s);
  s.gpus = node0_gpus(t);
  if (t.num_gpus() <= full_matrix_max_gpus) {
    s.matrix.resize(static_cast<std::size_t>(t.num_gpus()));
    for (int i = 0; i < t.num_gpus(); ++i) {
      for (int j = 0; j < t.num_gpus(); ++j) s.matrix[static_cast<std::size_t>(i)].push_back(t.route(i, j));
    }
  }
  s.pair_groups = pair_groups(t);
  return s;
}

}  // namespace ccforge::topo
