// Read from NVIDIA/nccl v2.18.3-1 and v2.28.9-1 (the steps are the same at v2.21.5-1 .. v2.27.7-1; only
// the constants in ChannelSearch differ):
// - src/init.cc: the ring graph is searched with 1 .. MAXCHANNELS/2 channels, then the tree graph with
//   exactly as many channels as the ring got; comm->nChannels = min(ring, tree).
// - src/graph/search.cc ncclTopoCompute: start at the fastest per-channel speed that no GPU-GPU path is
//   slower than (maxBw) and that minChannels channels do not overdraw (totalBw, x nGPUs/(nGPUs-1) for
//   trees); find as many channels as the links hold at that speed; keep a solution only if channels x
//   speed beats the best so far (a tie keeps the earlier, fewer hops); stop when it reaches totalBw or
//   maxChannels, else try the next slower speed while it is above 0.49 x the best one's. Then channels
//   are doubled (bandwidth halved) when the speed is at least 25 GB/s, except on sm > 80 below
//   50 GB/s with more than 4 channels. No solution: one channel in rank order.
// - src/graph/connect.cc ncclTopoPostset: the channels are doubled again (at most MAXCHANNELS);
//   NCCL_MAX_NCHANNELS defaults to MAXCHANNELS and NCCL_MIN_NCHANNELS to 0, so nothing else changes
//   on one node (the x2 for sm90 with bwIntra > 45 applies only across nodes).
// - src/init.cc ncclTopoTrimSystem drops the NICs when the node's GPUs are all in the communicator, so
//   the search uses the intra-node speed arrays and GPU-to-GPU paths only.
//
// What this gives on ccforge's bundled single-node topologies (tests/sim/nccl_default_channels_test.cpp):
// - H100 NVSwitch (ndv5, dgx-h100): each GPU's port is 18 NVLinks x SM90_NVLINK_BW = 360 GB/s (2.18)
//   or 370.8 (2.19+). Ring: 6 channels at 60 GB/s (= 360: done at 2.18; at 2.19+ 50, 40 and 30 GB/s give
//   350, 360, 360 and do not beat it, 24 is below 0.49 x 60); doubled to 12 at 30. Tree: 12 channels
//   from 30 GB/s (12 x 40 overdraws the port). 12 -> 24 channels.
// - A100 NVSwitch (ndv4): 12 x 20 = 240 GB/s. Ring 6 at 40 -> 12 at 20 (sm 80 is not > 80); tree 12
//   at 20. 12 -> 24 channels.
// - V100 cube mesh (dgx1-v100): double NVLinks 40, single 20 GB/s, 120 per GPU. 40 and 30 GB/s hold
//   only rings over double links (2, one per direction: 80); 20 GB/s holds the 6 rings mesh_rings finds
//   (120 = totalBw). No doubling below 25 GB/s; tree 6 at 20. 6 -> 12 channels.
// - PCIe, 4 A100 over two AMD sockets (pcie-4gpu): NCCL counts Gen4 x16 as 24 GB/s. 2.18 (no AMD_BW):
//   ring 1 channel at 20, 2 at 12 (= 24 = totalBw); tree 2 at 12. 2 -> 4 channels. 2.19+ (AMD_BW 16
//   GB/s between sockets, crossed once each way per ring): ring 1 at 15, nothing better down to 9 GB/s;
//   tree 1 at 15. 1 -> 2 channels.
// - Two ND H100 v5 / HGX H100 nodes, 8 NDR NICs per node (ndv5-x2): GPU-to-NIC path min(PCIe Gen5 x16
//   at NCCL's 48 GB/s, NDR 50 GB/s) = 48. Ring: 7 channels at 48 (the 370.8 GB/s port), 8 at 45 (one per
//   NIC: 360); 24 GB/s gives 15 x 24 = 360, no better, and 22 is below 0.49 x 45. No doubling (sm90 below
//   50 GB/s with 8 channels); tree 8 at 45; x2 = 16, and 45 is not above 45 for the sm90 multi-node x2.
// - MI300X runs RCCL, not derived here: rccl src/graph/search.cc first matches the node against its
//   hand-made models (parseA2a8P in src/graph/rome_models.cc for 8 all-to-all xGMI GPUs), and
//   ncclTopoPostset raises the count to at least nc x the searched channels, nc = 2 for 8 ranks (16 for
//   2, 4 for 4) in src/init.cc, within MAXCHANNELS 128 (64 with intra-node net channels).
#include "default_channels.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/mesh_rings.hpp"
#include "nccl_model.hpp"

namespace ccforge::sim::nccl {
namespace {

// NCCL counts a PCIe lane at 0.75 x its GT/s / 8 GB/s (src/graph/topo.cc kvDictPciGen in 100 Mb/s,
// width x speed / 80); ccforge's topology at its 128b/130b payload rate (GT/s x 128/130 / 8).
constexpr double kNcclPciePerTopologyPcie = 0.75 * 130.0 / 128.0;

constexpr double kLocBw = 5000.0;  // topo.h LOC_BW: what NCCL gives a link it does not limit

constexpr double kDupMinSpeed = 25.0;        // search.cc: no doubling below 25 GB/s per channel
constexpr double kDupSm90MaxSpeed = 50.0;    // ... nor, on sm > 80, below 50 GB/s with > 4 channels
constexpr int kDupSm90MaxChannels = 4;
constexpr double kSlowerSpeedRatio = 0.49;  // search.cc: try a slower speed only above 0.49 x the best

// src/graph/connect.cc ncclTopoPostset, several nodes on sm90+: "4 compute channels per search channel"
// doubles a ring graph faster than 45 GB/s while below 16 channels (v2.21.5-1 .. v2.28.9-1; v2.18.3-1
// doubles while 2 x channels <= MAXCHANNELS, the same on every topology whose graph reaches 45 GB/s).
constexpr double kMultiNodeDupMinSpeed = 45.0;
constexpr int kMultiNodeDupBelow = 16;

// What ncclTopoCompute sees of the node.
struct NodeView {
  double max_bw = 0.0;                     // system->maxBw: the fastest GPU-to-GPU path
  double total_bw = 0.0;                   // system->totalBw: a GPU's NVLink sum, or its PCIe link
  std::function<int(double)> channels_at;  // channels the links hold at a per-channel speed
};

struct Graph {
  int nchannels = 0;
  double speed = 0.0;
};

int fit(double bw, double speed) { return static_cast<int>(std::floor(bw / speed + 1e-9)); }

Graph search(const NodeView& node, const std::vector<double>& speeds, int min_channels, int max_channels,
             double start_total_bw) {
  std::size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > node.max_bw || speeds[i] * min_channels > start_total_bw)) ++i;
  Graph best;
  for (;;) {
    const int n = std::min(node.channels_at(speeds[i]), max_channels);
    if (n >= min_channels && n * speeds[i] > best.nchannels * best.speed) best = {n, speeds[i]};
    if (best.nchannels == max_channels || best.nchannels * best.speed >= node.total_bw) break;
    if (i + 1 == speeds.size() || (best.nchannels > 0 && speeds[i + 1] / best.speed <= kSlowerSpeedRatio)) break;
    ++i;
  }
  if (best.nchannels == 0) best = {1, 0.0};  // "falling back to simple order"
  return best;
}

void duplicate(Graph& g, int sm, int max_channels) {
  if (g.speed < kDupMinSpeed) return;
  if (sm > 80 && g.speed < kDupSm90MaxSpeed && g.nchannels > kDupSm90MaxChannels) return;
  g.nchannels = std::min(2 * g.nchannels, max_channels);
}

// GPUs meet in an NVSwitch: every ring or chain crosses each GPU's port once each way per channel.
NodeView nvswitch_view(double port_gbs) {
  return {port_gbs, port_gbs, [port_gbs](double speed) { return fit(port_gbs, speed); }};
}

// Direct NVLinks: at the single link's speed or below, the rings mesh_rings finds (its search is
// NCCL's on link units); above it, at most the links each GPU has that are that fast (a bound: only
// the lower speeds decide on the bundled meshes).
NodeView mesh_view(const topo::Topology& topo, double nccl_gbs_per_link) {
  const int p = topo.num_gpus();
  std::vector<std::vector<double>> out(p);
  NodeView node;
  double unit = std::numeric_limits<double>::max();
  for (int a = 0; a < p; ++a) {
    // A pair's NVLinks: its link's rate over one of the GPU's own links (fabric total / fabric_links),
    // so a profile that rescales the links keeps the count.
    const topo::GpuInfo& ga = topo.gpu(a);
    const double one_link = ga.nvlink_bandwidth.gbps() / ga.fabric_links;
    for (int b = 0; b < p; ++b) {
      if (a == b || topo.route(a, b).links.size() != 1) continue;
      const topo::Link& l = topo.link(topo.route(a, b).links[0]);
      const double bw = std::round(l.bandwidth.gbps() / one_link) * nccl_gbs_per_link;
      out[a].push_back(bw);
      unit = std::min(unit, bw);
      node.max_bw = std::max(node.max_bw, bw);
    }
    double sum = 0.0;
    for (double bw : out[a]) sum += bw;
    node.total_bw = std::max(node.total_bw, sum);
  }
  const int rings = static_cast<int>(mesh_rings(topo).size());
  node.channels_at = [out, unit, rings](double speed) {
    if (speed <= unit) return rings * fit(unit, speed);
    int fewest = std::numeric_limits<int>::max();
    for (const auto& links : out) {
      int n = 0;
      for (double bw : links) n += fit(bw, speed);
      fewest = std::min(fewest, n);
    }
    return fewest;
  };
  return node;
}

// PCIe only: each channel crosses every GPU's link once each way, and the link between sockets once
// each way when the GPUs span two (a ring) or once (a chain); every PCIe link is taken as wide as the GPU's.
NodeView pcie_view(const topo::Topology& topo, const TuningConstants& tables) {
  const int p = topo.num_gpus();
  const double pcie = topo.gpu(0).pcie_bandwidth.gbps() * kNcclPciePerTopologyPcie;
  double between_sockets = kLocBw;
  for (const topo::Link& l : topo.links()) {
    if (l.kind != topo::LinkKind::CpuInterconnect) continue;
    // The topology carries 2.19+'s AMD_BW; 2.18 leaves AMD sockets unlimited (LOC_BW).
    const bool amd = l.bandwidth.gbps() == topo.link_constants().cpu(topo::CpuFamily::Amd);
    if (!amd || tables.channel_search.amd_inter_cpu_limited) between_sockets = std::min(between_sockets, l.bandwidth.gbps());
  }
  NodeView node;
  bool spans_sockets = false;
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < p; ++b) {
      if (a == b) continue;
      const topo::PathClass c = topo.route(a, b).path_class;
      if (c == topo::PathClass::Phb) {
        fail_at(topo.source_file(), 0, "NCCL's default channel count is not derived for PCIe paths through one CPU",
                "set sim.nccl.nchannels");
      }
      const bool crosses = c == topo::PathClass::Sys;
      spans_sockets = spans_sockets || crosses;
      node.max_bw = std::max(node.max_bw, crosses ? std::min(pcie, between_sockets) : pcie);
    }
  }
  node.total_bw = pcie;
  const double cpu_link = spans_sockets ? between_sockets : kLocBw;
  node.channels_at = [pcie, cpu_link](double speed) { return std::min(fit(pcie, speed), fit(cpu_link, speed)); };
  return node;
}

// Several nodes (ncclTopoTrimSystem keeps the NICs): maxBw is the fastest GPU-to-NIC path, which GPUDirect
// RDMA takes through the PCIe switch, so min(NCCL's PCIe rate, the NIC's; net speed in Mb/s / 8000 in
// src/graph/topo.cc); each ring or tree channel enters and leaves the node through one NIC (NET n -> GPU
// ... GPU -> NET n or m) and crosses every GPU's NVSwitch port once each way. totalBw stays the port.
NodeView net_view(const topo::Topology& topo, double port_gbs) {
  const topo::GpuInfo& g = topo.gpu(0);
  const double path = std::min(g.pcie_bandwidth.gbps() * kNcclPciePerTopologyPcie, g.nic_bandwidth.gbps());
  // Every node searches its own NICs; the communicator keeps the fewest channels any node found
  // (init.cc: nChannels = min over ranks), so the node with the fewest NICs in service decides.
  int per_node = std::numeric_limits<int>::max();
  for (int node = 0; node < topo.num_nodes(); ++node) {
    per_node = std::min(per_node, static_cast<int>(nic_heads(topo, node).size()));
  }
  return {path, port_gbs, [path, port_gbs, per_node](double speed) {
            return std::min(per_node * fit(path, speed), fit(port_gbs, speed));
          }};
}

// The NVLS graph of one NVSwitch node (v2.18.3-1 .. v2.28.9-1 src/graph/search.cc): with no NIC in the
// system (ncclTopoTrimSystem drops them on one node) ncclTopoCompute fixes min = max channels to the GPU
// count (at most NCCL_MAX_NVLS_ARITY), and ncclTopoSearchTryNvls charges each channel's speed on every
// GPU's switch port both ways, twice on its head GPU's: a port carries (channels + 1) x speed. NVLS graphs
// are never duplicated (ncclTopoDupChannels returns early), and raising bwIntra in pass 2 overdraws the
// same ports. Hopper, 18 NVLinks: 370.8 GB/s (2.19+) or 360 (2.18) per port, 8 channels at 40 GB/s.
Graph nvls_search(double port_gbs, int gpus, const std::vector<double>& speeds, int max_arity) {
  const int channels = std::min(gpus, max_arity);
  const NodeView node{port_gbs, port_gbs, [port_gbs](double speed) { return std::max(0, fit(port_gbs, speed) - 1); }};
  return search(node, speeds, channels, channels, node.total_bw);
}

}  // namespace

bool nccl_search_derived(const topo::Topology& topo) {
  const topo::GpuInfo& g = topo.gpu(0);
  const bool derived_arch =
      g.model->arch == topo::GpuArch::Volta || g.model->arch == topo::GpuArch::Ampere || g.model->arch == topo::GpuArch::Hopper;
  const bool derived_fabric = topo.num_nodes() == 1 || (topo.has_nvswitch() && g.nic_bandwidth.gbps() > 0.0);
  return topo.gpus_per_node() >= 2 && derived_arch && derived_fabric;
}

namespace {

// Computes NCCL's graphs and channel count; searched_graphs memoizes them.
SearchedGraphs search_graphs(const topo::Topology& topo, const TuningConstants& tables) {
  const topo::GpuInfo& g = topo.gpu(0);
  const int p = topo.gpus_per_node();
  const bool multi_node = topo.num_nodes() > 1;
  if (!nccl_search_derived(topo)) {
    fail_at(topo.source_file(), 0,
            fmt::format("NCCL's default channel count is derived only for NVIDIA GPUs up to Hopper, 2+ per node, "
                        "NVSwitch nodes with NICs when several ({} nodes, {} GPUs per node, {})",
                        topo.num_nodes(), p, g.model->name),
            "set NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS with --env");
  }
  const ChannelSearch& cs = tables.channel_search;
  const std::span<const double> pre_sm90 = multi_node ? std::span<const double>(kSpeedArrayInter) : std::span<const double>(kSpeedArrayIntra);
  std::vector<double> speeds(pre_sm90.begin(), pre_sm90.end());
  if (g.model->sm >= 90) {
    speeds.clear();
    for (double s : multi_node ? std::span<const double>(cs.sm90_inter_speeds) : std::span<const double>(cs.sm90_intra_speeds)) {
      if (s > 0.0) speeds.push_back(s);
    }
  }
  const int row = arch_row(g.model->arch);
  const double nvlinks = g.fabric_links;
  const double port = nvlinks * tables.nvlink_bw_per_link[row];
  const NodeView node = multi_node             ? net_view(topo, port)
                        : topo.has_nvswitch() ? nvswitch_view(port)
                        : nvlinks > 0         ? mesh_view(topo, tables.nvlink_bw_per_link[row])
                                              : pcie_view(topo, tables);
  Graph ring = search(node, speeds, 1, cs.max_channels / 2, node.total_bw);
  duplicate(ring, g.model->sm, cs.max_channels / 2);
  Graph tree = search(node, speeds, ring.nchannels, ring.nchannels, node.total_bw * p / (p - 1));
  duplicate(tree, g.model->sm, ring.nchannels);
  int n = std::min(cs.max_channels, 2 * std::min(ring.nchannels, tree.nchannels));
  if (multi_node && g.model->sm >= 90 && ring.speed > kMultiNodeDupMinSpeed && n < kMultiNodeDupBelow) n = 2 * n;
  SearchedGraphs found{std::min(cs.max_channels, n), ring.nchannels, ring.speed};
  if (!multi_node && topo.has_nvswitch() && g.model->sm >= 90) {
    const Graph nvls = nvls_search(port, p, speeds, cs.max_nvls_arity);
    found.nvls_channels = nvls.nchannels;
    found.nvls_speed = nvls.speed;
  }
  return found;
}

}  // namespace

SearchedGraphs searched_graphs(const topo::Topology& topo, const TuningConstants& tables) {
  // Kept with the topology, one search per version's tables, so that every simulation on one topology
  // reuses it (a mesh's ring search is the costly part) and a topology built otherwise does not.
  const std::shared_ptr<const void> found =
      topo.derived(&tables, [&] { return std::make_shared<const SearchedGraphs>(search_graphs(topo, tables)); });
  return *static_cast<const SearchedGraphs*>(found.get());
}

int default_nchannels(const topo::Topology& topo, const TuningConstants& tables) {
  return searched_graphs(topo, tables).nchannels;
}

}  // namespace ccforge::sim::nccl
