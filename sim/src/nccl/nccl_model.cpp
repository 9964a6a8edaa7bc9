#include "nccl_model.hpp"

#include "net/transport_costs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "costs.hpp"
#include "default_channels.hpp"
#include "rccl_msccl.hpp"

namespace ccforge::sim::nccl {
namespace {

int node_column(int nnodes) { return nnodes <= 1 ? 0 : nnodes == 2 ? 1 : 2; }

int nsteps(ir::Collective coll, int nranks) {
  switch (coll) {
    case ir::Collective::AllReduce:
      return 2 * (nranks - 1);
    case ir::Collective::AllGather:
    case ir::Collective::ReduceScatter:
      return nranks - 1;
    default:
      return nranks;
  }
}

bool ring_capable(ir::Collective c) {
  return c == ir::Collective::AllReduce || c == ir::Collective::AllGather || c == ir::Collective::ReduceScatter ||
         c == ir::Collective::Broadcast || c == ir::Collective::Reduce;
}

double ring_bus_bw(const NcclView& v, ir::Collective coll, int proto, double bw) {
  const TuningConstants& t = *v.tables;
  const int col = node_column(v.nnodes);
  if (proto == kLL) {
    const bool quarter = v.nnodes > 1 || coll == ir::Collective::AllReduce || coll == ir::Collective::Reduce;
    const double factor = t.ring_ll_by_coll ? (quarter ? 0.25 : 1.0 / 3.0) : 0.5;
    return std::min(t.ll_max_bw[v.nnodes == 1 ? v.arch : 0][col], bw * factor);
  }
  if (proto == kLL128) {
    // 2.18 discounts a GPU that sends and receives through its NIC (ppn < 2); 2.28 does not.
    const double factor = v.tables->legacy_multi_node && v.ppn < 2 ? 0.7 : 0.92;
    return std::min(bw * factor, v.nchannels * t.per_ch_max_ring_ll128_bw[v.arch][col]);
  }
  return bw;
}

double tree_bus_bw(const NcclView& v, int proto, double bw) {
  const TuningConstants& t = *v.tables;
  const int col = node_column(v.nnodes);
  double bus = std::min(bw * 0.92, v.nchannels * t.per_ch_max_tree_bw[v.arch][col]);
  if (proto == kLL) bus = std::min(bus / 3.8, t.ll_max_bw[v.nnodes == 1 ? v.arch : 0][col]);
  if (proto == kLL128) {
    bus = std::min(bus * (v.nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   v.nchannels * t.per_ch_max_tree_ll128_bw[v.arch][col]);
  }
  return bus;
}

bool nvls_capable(const NcclView& v) {
  return v.nvls_enabled && v.nvswitch && v.tables->nvls_efficiency[v.arch] > 0.0;
}

// NVLSTree: each NVLS head (one per NIC) moves its share through its NIC; the graph's per-channel
// speed is that NIC's. 2.19-2.27 halve it from 3 nodes on; 2.28 caps it by the in-switch rate and
// perChMaxNVLSTreeBws; 2.18 does neither.
double nvls_tree_bus_bw(const NcclView& v) {
  const TuningConstants& t = *v.tables;
  const double head_bw = v.inter_bw_gbs;
  if (t.nvls_model == NvlsModel::kLinks2_18) return v.nvls_heads * head_bw;
  if (t.nvls_model != NvlsModel::kEfficiency) return v.nvls_heads * (v.nnodes <= 2 ? head_bw : head_bw / 2);
  const double intra = head_bw * t.nvls_efficiency[v.arch] * (kNvlsChannels - 1) / kNvlsChannels * 2;
  const double inter = head_bw * (v.nnodes <= 2 ? 2 : 1);
  return v.nvls_heads * std::min({intra, inter, t.per_ch_max_nvls_tree_bw[v.arch][node_column(v.nnodes)]});
}

bool gather_like(ir::Collective c) { return c == ir::Collective::AllGather || c == ir::Collective::ReduceScatter; }
bool broadcast_or_reduce(ir::Collective c) { return c == ir::Collective::Broadcast || c == ir::Collective::Reduce; }

// RCCL on its hand-matched nodes (rccl_tuning.hpp): busBw = totalBw x bwRatio (its row for up to 2
// nodes or more); ring for every ring collective, tree for allreduce only and never Simple on one gfx94
// node (tuning.cc skips tree Simple where the node's GPUs are all the ranks).
double rccl_bus_bw(const NcclView& v, ir::Collective coll, int algo, int proto) {
  const RcclTuning& r = *v.rccl;
  const auto& ratio = v.nnodes <= 2 ? r.bw_ratio : r.bw_ratio_many;
  if (algo == kRing && ring_capable(coll)) {
    const bool ll_boost = proto == kLL && broadcast_or_reduce(coll) && v.nnodes == 1;
    return v.intra_bw_gbs * ratio[kRcclRing][proto] * (ll_boost ? r.bcast_reduce_ring_ll : 1.0);
  }
  if (algo == kTree && coll == ir::Collective::AllReduce && (proto != kSimple || v.nnodes > 1)) {
    return v.intra_bw_gbs * ratio[kRcclTree][proto];
  }
  return 0.0;
}

// Broadcast and reduce pay one step latency: the model graph keeps sameChannels = 1 (ROCm/rccl @0cbce2a
// src/graph/search.cc ncclTopoCompute sets it before matching rome models, whose parsers leave it), and
// tuning.cc then adds `lat` once instead of nsteps x lat, the network's across nodes. Across nodes a
// ring's other steps cost at least the proxy's post (x3 for Simple) and its inter-node steps (2 x nodes
// for allreduce at this commit, nodes - 1 for allgather/reducescatter) hwLat[NET]; a tree's log2(nodes)
// levels each way pay hwLat[NET].
double rccl_latency_us(const NcclView& v, ir::Collective coll, int algo, int proto) {
  const RcclTuning& r = *v.rccl;
  const bool across = v.nnodes > 1;
  if (algo == kTree) {
    return r.base_lat[kRcclTree][proto] +
           2 * ((v.ppn - 1) * r.xgmi_lat[kRcclTree][proto] + log2_floor(v.nnodes) * r.net_lat[kRcclTree][proto]);
  }
  const double base = r.base_lat[kRcclRing][proto];
  if (broadcast_or_reduce(coll)) return base + (across ? r.net_lat : r.xgmi_lat)[kRcclRing][proto];
  double intra = r.xgmi_lat[kRcclRing][proto];
  if (across) intra = std::max(intra, kNetOverheadUs * (proto == kSimple ? 3 : 1));
  const int inter = !across ? 0 : coll == ir::Collective::AllReduce ? 2 * v.nnodes : v.nnodes - 1;
  return base + (nsteps(coll, v.nranks) - inter) * intra + inter * r.net_lat[kRcclRing][proto];
}

// Bus bandwidth NCCL assigns to (algo, proto), GB/s; 0 when NCCL would not run it.
double bus_bw(const NcclView& v, ir::Collective coll, int algo, int proto) {
  // One GPU per node: its only peer path is the NIC (the graph's bwIntra is the net speed).
  const double bw = v.nnodes == 1              ? v.intra_bw_gbs
                    : v.ppn == 1               ? v.inter_bw_gbs
                    : v.net_graph_bw_gbs > 0.0 ? v.net_graph_bw_gbs
                                               : std::min(v.intra_bw_gbs, v.inter_bw_gbs);
  const bool allreduce = coll == ir::Collective::AllReduce;
  if (proto == kLL128 && !v.ll128_built) return 0.0;
  if (v.rccl) return rccl_bus_bw(v, coll, algo, proto);
  if (algo == kRing) return ring_capable(coll) ? ring_bus_bw(v, coll, proto, bw) : 0.0;
  if (algo == kTree) return allreduce ? tree_bus_bw(v, proto, bw) : 0.0;
  if (algo == kNvls) {
    const bool supported = allreduce || (gather_like(coll) && v.tables->nvls_all_gather);
    // Across nodes NVLS needs CollNet (SHARP), which ccforge's fabrics do not offer.
    if (!nvls_capable(v) || proto != kSimple || !supported || v.nnodes > 1) return 0.0;
    // One node: the NVLS graph's bwInter equals its bwIntra, so min(bwIntra, bwInter) is bwIntra, and
    // busBw is that graph's nChannels x bwIntra (not the ring's: 320 vs 370.8 GB/s on 8 H100s).
    const double nvls_bw = v.nvls_graph_bw_gbs > 0.0 ? v.nvls_graph_bw_gbs : bw;
    const int nvls_channels = v.nvls_graph_channels > 0 ? v.nvls_graph_channels : kNvlsChannels;
    if (v.tables->nvls_model == NvlsModel::kGatherCapped && !allreduce) return nvls_bw * std::min((v.ppn - 1.0) / v.ppn, 0.9);
    if (v.tables->nvls_model != NvlsModel::kEfficiency) return nvls_bw;
    const double intra = nvls_bw * v.tables->nvls_efficiency[v.arch] * (nvls_channels - 1) / nvls_channels;
    return allreduce ? intra * 2 : intra * (v.ppn - 1) / v.ppn;
  }
  if (algo == kNvlsTree) {
    if (!nvls_capable(v) || proto != kSimple || !allreduce || v.nnodes < 2 || v.nvls_heads < 1) return 0.0;
    return nvls_tree_bus_bw(v);
  }
  if (algo == kPat) {
    // ncclPatEnable: 2.23+, one GPU per node, Simple only, allgather and reducescatter.
    if (v.tables->pat_bw_factor <= 0.0 || !v.pat_enabled || proto != kSimple || !gather_like(coll) || v.ppn != 1) return 0.0;
    return bw * v.tables->pat_bw_factor;
  }
  return 0.0;  // CollNet: no SHARP fabric modelled
}

double latency_us(const NcclView& v, ir::Collective coll, int algo, int proto) {
  if (v.rccl) return rccl_latency_us(v, coll, algo, proto);
  const TuningConstants& t = *v.tables;
  const bool legacy = t.legacy_multi_node;
  double intra = t.hw_lat[v.intra_hw][algo][proto];
  // 2.28: with one GPU per node every step is exposed, so NCCL charges the tree's network latency.
  // The plugin's own latency rides on top, twice for Simple ("the flush extra latency"; v2.18.3-1..v2.28.9-1).
  const double inter = t.hw_lat[kHwNet][!legacy && v.ppn == 1 ? kTree : algo][proto] + v.net_latency_us * (proto == kSimple ? 2 : 1);
  const double base = t.base_lat[algo][proto];
  const int lg = log2_floor(v.nnodes);
  if (algo == kRing) {
    const int steps = nsteps(coll, v.nranks);
    if (v.nnodes > 1) intra = std::max(intra, kNetOverheadUs * (proto == kSimple ? 3 : 1));
    const bool allreduce = coll == ir::Collective::AllReduce;
    const int ninter = v.nnodes == 1 ? 0 : allreduce ? (legacy ? 2 * v.nnodes : 2 * (v.nnodes - 1)) : v.nnodes - 1;
    return base + (steps - ninter) * intra + ninter * inter;
  }
  if (algo == kTree) return base + 2 * ((v.ppn - 1) * intra + lg * inter);
  if (algo == kNvlsTree) {
    if (t.nvls_model == NvlsModel::kLinks2_18) return base + 2 * (v.nnodes - 1) * inter;
    return base + intra + 2 * lg * inter;
  }
  if (algo == kPat) return base + lg * (inter / kPatInterLatDivisor) + v.nranks * kPatPerRankUs;
  return base + intra + (v.nnodes > 1 ? inter : 0.0);  // NVLS
}

double algbw_ratio(const NcclView& v, ir::Collective coll, int algo) {
  const NvlsModel nvls = v.tables->nvls_model;
  // 2.23+ convert bus to algorithm bandwidth only for ring, or for allreduce-like collectives.
  if (v.tables->gather_busbw_unconverted && algo != kRing && gather_like(coll)) return 1.0;
  const double ring_ratio = static_cast<double>(v.nranks) / nsteps(coll, v.nranks);
  if (algo == kRing || ((algo == kNvls || algo == kNvlsTree) && nvls == NvlsModel::kEfficiency)) return ring_ratio;
  if (algo == kNvlsTree && nvls == NvlsModel::kLinks2_18) return 0.7 * v.nnodes / (2.0 * (v.nnodes - 1));
  if (algo == kNvls || algo == kNvlsTree) return 5.0 / 6.0;
  return 0.5;
}

// The channels NCCL's graph search gives before NCCL_MIN/MAX_NCHANNELS: sim.nccl.nchannels when set,
// else NCCL's own search; not searched when the settings fix the count (MIN >= MAX).
int graph_channels(const topo::Topology& topo, const SimParams& sim_params, const TuningConstants& tables) {
  const int given = sim_params.constants.nccl_nchannels;
  if (given > 0) return given;
  const NcclSettings& s = sim_params.nccl;
  const std::optional<int> most = s.max_channels && s.max_ctas ? std::min(*s.max_channels, *s.max_ctas)
                                                                : s.max_channels ? s.max_channels : s.max_ctas;
  const int least = std::max(s.min_channels.value_or(0), s.min_ctas.value_or(0));
  if (most && least >= *most) return *most;
  if (!nccl_search_derived(topo)) return sim_params.constants.nccl_nchannels_underived;
  return default_nchannels(topo, tables);
}

}  // namespace

std::vector<int> nic_heads(const topo::Topology& topo, int node) {
  std::vector<int> heads;
  std::set<std::uint32_t> seen;
  const int ppn = topo.gpus_per_node();
  for (int r = 0; r < ppn; ++r) {
    const auto& nic = topo.gpu(node * ppn + r).nearest_nic;
    if (nic && seen.insert(nic->v).second) heads.push_back(r);
  }
  return heads;
}

std::vector<int> nvls_connected_heads(const topo::Topology& topo) {
  std::vector<int> heads = nic_heads(topo, 0);
  for (int n = 1; n < topo.num_nodes(); ++n) {
    heads.resize(std::min(heads.size(), nic_heads(topo, n).size()));
  }
  return heads;
}

NcclView make_view(const topo::Topology& topo, const SimParams& sim_params) {
  NcclView v;
  const SimConstants& params = sim_params.constants;
  v.tables = tuning_tables_for(params.nccl_version);
  if (v.tables == nullptr) {
    fail_at("sim.nccl.version", 0, fmt::format("no NCCL tuning tables for version {}", nccl_version_number(params.nccl_version)),
            fmt::format("use one of {}; a patch release maps to its major.minor", kCarriedNcclVersions));
  }
  const topo::GpuInfo& g = topo.gpu(0);
  v.nranks = topo.num_gpus();
  v.nnodes = topo.num_nodes();
  v.ppn = topo.gpus_per_node();
  v.arch = arch_row(g.model->arch);
  // The topology built NVLink/xGMI from datasheet per-link rates; NCCL counts the same links at its own
  // per-link speed (topo.h SMxx_NVLINK_BW), PCIe at PCI_BW-like rates.
  const int links = g.fabric_links;
  v.intra_hw = links > 0 ? kHwNvlink : kHwPci;
  v.intra_bw_gbs = links > 0 ? links * v.tables->nvlink_bw_per_link[v.arch] : g.pcie_bandwidth.gbps();
  v.inter_bw_gbs = g.nic_bandwidth.gbps() * params.net_efficiency;
  v.net_latency_us = net::reported_latency_us(topo);
  v.nvswitch = topo.has_nvswitch();
  v.nvls_heads = static_cast<int>(nvls_connected_heads(topo).size());
  v.ll128_built = g.model->arch != topo::GpuArch::Cdna3;
  if (rccl_msccl_node(topo) || rccl_tuned_cluster(topo)) {
    // rome_models.cc: the model graph's nChannels x bwIntra is totalBw, the GPU's xGMI links at RCCL's width.
    v.rccl = &kRcclTuningModel5;
    v.intra_bw_gbs = links * v.rccl->xgmi_link_gbs;
  }
  if (nccl_search_derived(topo)) {
    const SearchedGraphs graphs = searched_graphs(topo, *v.tables);
    if (v.nnodes > 1) v.net_graph_bw_gbs = graphs.ring_channels * graphs.ring_speed;
    v.nvls_graph_channels = graphs.nvls_channels;
    v.nvls_graph_bw_gbs = graphs.nvls_channels * graphs.nvls_speed;
  }
  v.nchannels = nccl_channels(graph_channels(topo, sim_params, *v.tables), sim_params.nccl, v.tables->channel_search.max_channels);
  v.nvls_enabled = sim_params.nccl.nvls.value_or(true);
  v.pat_enabled = sim_params.nccl.pat.value_or(true);
  return v;
}

std::optional<double> model_time_us(const NcclView& v, ir::Collective coll, int algo, int proto, double bytes) {
  const double bus = bus_bw(v, coll, algo, proto);
  if (bus <= 0.0 || v.nranks < 2) return std::nullopt;
  double algbw = bus * algbw_ratio(v, coll, algo);
  const int idx = static_cast<int>(std::log2(std::max(bytes, 64.0) / 64.0));
  if (algo == kTree) {
    if (v.rccl) {
      algbw *= v.rccl->tree_correction[proto][std::min(idx, 26)];
    } else if (idx < kTreeCorrectionSizes) {
      algbw *= kTreeCorrection[proto][idx];
    }
  }
  if (algo == kRing && v.rccl && v.nnodes > 1) algbw *= v.rccl->ring_correction[proto][std::min(idx, 26)];
  return latency_us(v, coll, algo, proto) + bytes / (1000.0 * algbw);
}

int channels_for_call(const NcclView& v, int algo, int proto, double bytes) {
  if (algo == kNvls || algo == kNvlsTree) return kNvlsChannels;
  const int threshold = kThreadThreshold[proto] * ((algo == kRing && proto == kLL) ? v.nranks : 1);
  int nc = v.nchannels;
  while (nc > 1 && bytes < static_cast<double>(nc) * kMaxThreads[proto] * threshold) --nc;
  return nc;
}

}  // namespace ccforge::sim::nccl
