#include "nccl_model.hpp"

#include <algorithm>
#include <cmath>

#include "costs.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim::nccl {
namespace {

int arch_row(topo::GpuArch arch) {
  switch (arch) {
    case topo::GpuArch::Volta: return 0;
    case topo::GpuArch::Hopper: return 2;
    case topo::GpuArch::Blackwell: return 3;
    default: return 1;  // Ampere, and CDNA3 (RCCL keeps NCCL's Ampere-era tables)
  }
}

int node_column(int nnodes) { return nnodes <= 1 ? 0 : nnodes == 2 ? 1 : 2; }

int nsteps(ir::Collective coll, int nranks) {
  switch (coll) {
    case ir::Collective::AllReduce: return 2 * (nranks - 1);
    case ir::Collective::AllGather:
    case ir::Collective::ReduceScatter: return nranks - 1;
    default: return nranks;
  }
}

bool ring_like(ir::Collective c) {
  return c == ir::Collective::AllReduce || c == ir::Collective::AllGather || c == ir::Collective::ReduceScatter ||
         c == ir::Collective::Broadcast || c == ir::Collective::Reduce;
}

// Bus bandwidth NCCL assigns to (algo, proto), GB/s; 0 when unavailable.
double bus_bw(const NcclView& v, ir::Collective coll, int algo, int proto) {
  const int col = node_column(v.nnodes);
  const double nch = v.nchannels;
  double bw = v.nnodes == 1 ? v.intra_bw_gbs : std::min(v.intra_bw_gbs, v.inter_bw_gbs);
  const double ll_max = kLLMaxBw[v.arch][col];
  if (algo == kRing) {
    if (!ring_like(coll)) return 0.0;
    if (proto == kLL) return std::min(ll_max, bw * 0.5);
    if (proto == kLL128) return std::min(bw * 0.92, nch * kPerChMaxRingLL128Bw[v.arch][col]);
    return bw;
  }
  if (algo == kTree) {
    if (coll != ir::Collective::AllReduce) return 0.0;
    if (proto == kLL) return std::min(bw / 3.8, ll_max);
    if (proto == kLL128) {
      return std::min(bw * (v.nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), nch * kPerChMaxTreeLL128Bw[v.arch][col]);
    }
    return std::min(bw * 0.92, nch * kPerChMaxTreeBw[v.arch][col]);
  }
  if (algo == kNvls) {
    const bool supported = coll == ir::Collective::AllReduce || coll == ir::Collective::AllGather ||
                           coll == ir::Collective::ReduceScatter;
    if (!v.nvls || proto != kSimple || !supported || v.nnodes > 1) return 0.0;
    const double nvls_ch = kNvlsChannels;
    const double intra = v.intra_bw_gbs * kNvlsEfficiency[v.arch] * (nvls_ch - 1) / nvls_ch;
    return coll == ir::Collective::AllReduce ? intra * 2 : intra * (v.ppn - 1) / v.ppn;
  }
  return 0.0;  // NVLSTree, PAT, CollNet: not modelled
}

double latency_us(const NcclView& v, ir::Collective coll, int algo, int proto) {
  const double intra = kHwLat[v.intra_hw][algo][proto];
  const double inter = kHwLat[kHwNet][algo][proto];
  const double base = kBaseLat[algo][proto];
  if (algo == kRing) {
    const int steps = nsteps(coll, v.nranks);
    const int ninter = v.nnodes == 1 ? 0 : coll == ir::Collective::AllReduce ? 2 * (v.nnodes - 1) : v.nnodes - 1;
    return base + (steps - ninter) * intra + ninter * inter;
  }
  if (algo == kTree) {
    return base + 2 * ((v.nranks / v.nnodes - 1) * intra + std::log2(static_cast<double>(v.nnodes)) * inter);
  }
  return intra + (v.nnodes > 1 ? inter : 0.0);  // NVLS
}

}  // namespace

NcclView make_view(const topo::Topology& topo, const ParamTable& params) {
  NcclView v;
  const topo::GpuInfo& g = topo.gpu(0);
  v.nranks = topo.num_gpus();
  v.nnodes = topo.num_nodes();
  v.ppn = topo.gpus_per_node();
  v.arch = arch_row(g.arch);
  const double nvlink = g.nvlink_bandwidth.gbps();
  v.intra_hw = nvlink > 0 ? kHwNvlink : kHwPci;
  // NCCL's model rates: its effective per-link NVLink speed, i.e. the achievable share of the raw rate.
  v.intra_bw_gbs = nvlink > 0 ? nvlink * params.get(std::string("sim.link.nvlink.efficiency.") + arch_key(g.arch))
                              : g.pcie_bandwidth.gbps();
  v.inter_bw_gbs = g.nic_bandwidth.gbps() * params.get("sim.link.net.efficiency");
  v.nvls = topo.has_nvswitch() && kNvlsEfficiency[v.arch] > 0.0;
  v.nchannels = static_cast<int>(params.get("sim.nccl.nchannels"));
  return v;
}

std::optional<double> model_time_us(const NcclView& v, ir::Collective coll, int algo, int proto, double bytes) {
  const double bus = bus_bw(v, coll, algo, proto);
  if (bus <= 0.0) return std::nullopt;
  const bool ring_ratio = algo == kRing || algo == kNvls || algo == kNvlsTree;
  double algbw = ring_ratio ? bus * v.nranks / nsteps(coll, v.nranks) : bus * 0.5;
  if (algo == kTree && coll == ir::Collective::AllReduce) {
    const int idx = static_cast<int>(std::log2(std::max(bytes, 64.0) / 64.0));
    if (idx < kTreeCorrectionSizes) algbw *= kTreeCorrection[proto][idx];
  }
  return latency_us(v, coll, algo, proto) + bytes / (1000.0 * algbw);
}

int channels_for_call(const NcclView& v, int algo, int proto, double bytes) {
  if (algo == kNvls) return kNvlsChannels;
  const int threshold = kThreadThreshold[proto] * ((algo == kRing && proto == kLL) ? v.nranks : 1);
  int nc = v.nchannels;
  while (nc > 1 && bytes < static_cast<double>(nc) * kMaxThreads[proto] * threshold) --nc;
  return nc;
}

}  // namespace ccforge::sim::nccl
