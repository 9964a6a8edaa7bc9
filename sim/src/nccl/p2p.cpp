#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "costs.hpp"
#include "net/transport_costs.hpp"
#include "nccl_lowering.hpp"
#include "p2p_layout.hpp"

namespace ccforge::sim::nccl {
namespace {

int pow2_up(int v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

double div_up(double a, double b) { return std::ceil(a / b); }

// A p2p threadblock's warps (NCCL_MAX_NTHREADS 640) are split among the send/recv pairs of its batch
// (p2p_layout.hpp); a threadblock's copy rate grows with its threads (one H200 block's global copy
// 35 GB/s at 512 threads, 42 GB/s at 640: ../shared/reference/measurements/h200-one-gpu ceilings.csv),
// so a pair's part moves the channel's rate times its receiving warps' share.
constexpr double kWarps = 20;

// NCCL's isAllNvlink (v2.26.2-1 src/graph/paths.cc ncclTopoPathAllNVLink): no GPU pair of a node is
// farther apart than NVLink (NVL, NVB, C2C: below PIX).
bool all_nvlink(const topo::Topology& topo) {
  const int g = topo.gpus_per_node();
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b)
      if (a != b && topo.route(a, b).path_class >= topo::PathClass::Pix) return false;
  return true;
}

}  // namespace

P2pOp p2p_op(const NcclCall& call, const topo::Topology& topo, NcclVersion version, double bytes) {
  const int nranks = topo.num_gpus();
  const bool multi_node = topo.num_nodes() > 1;
  // Channels (NVIDIA/nccl v2.26.2-1 src/graph/paths.cc ncclTopoComputeP2pChannels, ncclTopoGetNchannels):
  // the ring's channels rounded up to a power of two; per peer the fewest any peer allows, also rounded
  // up: a PCIe peer 2, an NVLink peer 2 x its NVLinks (through an NVSwitch 2 x 12-18, at least the ring's
  // channels, so those are taken; elsewhere some pair has one link or none: 2), a peer across the network
  // NCCL_NCHANNELS_PER_NET_PEER: 2 up to v2.19, from v2.20.3-1 2 halved while 2 x ranks exceeds 4 x the
  // p2p channels (no GPU here has several NICs by bandwidth).
  const int p2p_channels = pow2_up(std::max(1, call.nchannels));
  int per_peer = topo.gpus_per_node() == 1 || topo.has_nvswitch() ? p2p_channels : 2;
  if (multi_node) {
    int net = 2;
    if (version >= NcclVersion{2, 20})
      while (net * nranks > p2p_channels * 4 && net > 1) net /= 2;
    per_peer = std::min(per_peer, net);
  }
  per_peer = std::min(pow2_up(per_peer), p2p_channels);
  // src/enqueue.cc scheduleP2pTasksToPlan: one channel per operation if all peers' channels fit (up to
  // v2.19 on one node only) and, up to v2.19 on one node, no channel with 8+ operations.
  int channels_min = per_peer, channels_max = per_peer;
  const bool from_2_20 = version >= NcclVersion{2, 20};
  if (from_2_20 || !multi_node)
    while (channels_min * nranks > p2p_channels && channels_min > 1) channels_min /= 2;
  if (!from_2_20 && !multi_node)
    while (channels_max * nranks > p2p_channels * 4 && channels_max > 1) channels_max /= 2;
  // Protocol (NCCL_P2P_LL_THRESHOLD 16 KiB): from v2.22.3-1 (addP2pToPlan) LL while the op is at most
  // that per channel it may use, its step then the LL buffer's (NCCL_STEPS of 64 KiB of lines); before,
  // per part, with the parts cut by Simple's step.
  constexpr double kLLThreshold = 16384;
  const bool from_2_22 = version >= NcclVersion{2, 22};
  P2pOp op;
  op.proto = from_2_22 && bytes <= channels_max * kLLThreshold ? ir::Protocol::LL : ir::Protocol::Simple;
  // Simple's step (src/init.cc computeBuffSizes): NCCL_P2P_NET_CHUNKSIZE across nodes (128 KiB unless the
  // transport's profile sets it), NCCL_P2P_NVL_CHUNKSIZE 512 KiB where every GPU pair is NVLink,
  // NCCL_P2P_PCI_CHUNKSIZE 128 KiB otherwise.
  const double simple_step = multi_node ? net::p2p_net_chunk_bytes(topo) : all_nvlink(topo) ? 524288.0 : 131072.0;
  const double ll_step = 2.0 * static_cast<double>(ir::step_bytes(ir::Protocol::LL));  // lines: half data
  op.step = op.proto == ir::Protocol::LL ? ll_step : simple_step;
  // Parts: at least channels_min, each at least the minimum part; doubled while a part exceeds the
  // maximum (addP2pToPlan; up to v2.21 calcP2pChunkSize; up to v2.19 the minimum is step / 8 anywhere).
  const double min_part = multi_node && from_2_20 ? op.step / 2 : op.step / 8;
  const double max_part = multi_node ? op.step : op.step * 32;
  op.parts = std::max(1, static_cast<int>(std::min<double>(channels_min, div_up(bytes, min_part))));
  double part = std::max(min_part, div_up(bytes, op.parts));
  while (part > max_part && op.parts <= channels_max / 2) {
    op.parts *= 2;
    part = div_up(bytes, op.parts);
  }
  op.part_bytes = bytes / op.parts;
  if (!from_2_22 && op.part_bytes <= kLLThreshold) op.proto = ir::Protocol::LL;
  // The payload a part moves per FIFO slot: LL carries half its lines' bytes; from v2.22.3-1 a Simple op
  // across the network under 8 steps halves it, under one step quarters it.
  op.chunk = op.proto == ir::Protocol::LL ? static_cast<double>(ir::step_bytes(ir::Protocol::LL)) : simple_step;
  if (from_2_22 && multi_node && op.proto == ir::Protocol::Simple)
    op.chunk = bytes < op.step ? op.step / 4 : bytes < 8 * op.step ? op.step / 2 : op.step;
  return op;
}

void lower_p2p(Lowering& low, const NcclCall& call) {
  const topo::Topology& topo = low.topo();
  const int p = topo.num_gpus();
  const double share = call.bytes / p;
  const P2pOp op = p2p_op(call, topo, low.params().nccl_version, share);
  const P2pLayout layout(topo, low.params().nccl_version, pow2_up(std::max(1, call.nchannels)), op.parts);
  const ProtocolCosts costs = protocol_costs(low.params(), call.proto, low.topo());
  // Sends to several NVLink peers at once reach a share of the GPU's NVLink rate (sim.p2p.nvlink_share).
  ProtocolCosts nvlink_costs = costs;
  const double nvlink_cap = alltoall_nvlink_cap(low.params(), topo);
  if (call.proto == ir::Protocol::Simple && nvlink_cap > 0.0 && call.coll == ir::Collective::AllToAll)
    nvlink_costs.gpu_bytes_per_s = nvlink_cap / costs.wire_efficiency;
  const std::uint32_t label = low.graph().add_label("p2p send");
  const std::uint32_t copy_label = low.graph().add_label("p2p copy out");
  for (int src = 0; src < p; ++src) {
    const int track = low.track(fmt::format("rank {} p2p x{}", src, op.parts));
    for (int dst = 0; dst < p; ++dst) {
      if (src == dst) continue;
      const bool wanted = call.coll == ir::Collective::AllToAll || (call.coll == ir::Collective::Gather && dst == call.root) ||
                          (call.coll == ir::Collective::Scatter && src == call.root);
      if (!wanted) continue;
      // A part streams its chunks through the connection's FIFO: the sender's warps store each chunk
      // into the slot, the receiver's warps copy it out to the user buffer (prims_simple.h,
      // prims_ll.h), the two overlapped chunk by chunk, so a part flows at the rate of its fewer,
      // receiving warps and the last chunk's copy-out trails it. One weighted task stands for the
      // parts whose channels give them as many warps.
      // LL sends (at most NCCL_P2P_LL_THRESHOLD a channel) are a few lines each, bound by latency, not
      // by their warps' issue rate: they keep a lone pair's warps.
      std::map<int, int> parts_by_warps;
      if (call.proto == ir::Protocol::Simple) {
        for (int warps : layout.recv_warps(src, dst)) ++parts_by_warps[warps];
      } else {
        parts_by_warps[p2p_warps(1).recv] = op.parts;
      }
      const bool nvlink = topo.gpu(src).node == topo.gpu(dst).node;
      for (const auto& [warps, parts] : parts_by_warps) {
        ProtocolCosts send = nvlink ? nvlink_costs : costs;
        send.tb_bytes_per_s = costs.tb_bytes_per_s * warps / kWarps;
        const SimTime tail =
            transfer_time(std::min(op.chunk, op.part_bytes) / costs.wire_efficiency, Bandwidth{send.tb_bytes_per_s});
        const TaskId moved = low.add_transfer(src, dst, op.part_bytes, send, track, label, true, parts);
        low.graph().depend(moved, low.add_local(tail, track, copy_label));
      }
    }
  }
}

}  // namespace ccforge::sim::nccl
