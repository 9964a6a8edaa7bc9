#include <fmt/core.h>

#include "costs.hpp"
#include "nccl_lowering.hpp"

namespace ccforge::sim::nccl {
namespace {

int next_pow2(int v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

void lower_p2p(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = protocol_costs(low.params(), ir::Protocol::Simple, low.topo());
  const int p = low.topo().num_gpus();
  // Channels per peer: NCCL spreads its p2p channels over the peers (src/graph/paths.cc
  // ncclTopoComputeP2pChannels rounds to a power of two); each channel is one threadblock.
  const double per_peer = next_pow2(std::max(1, call.nchannels / std::max(1, p - 1)));
  const double share = call.bytes / p;
  const std::uint32_t label = low.graph().add_label("p2p send");
  for (int src = 0; src < p; ++src) {
    const int track = low.track(fmt::format("rank {} p2p x{}", src, per_peer));
    for (int dst = 0; dst < p; ++dst) {
      if (src == dst) continue;
      const bool wanted = call.coll == ir::Collective::AllToAll || (call.coll == ir::Collective::Gather && dst == call.root) ||
                          (call.coll == ir::Collective::Scatter && src == call.root);
      if (!wanted) continue;
      // One weighted task stands for the per_peer channels, each moving 1/per_peer of the share.
      low.add_transfer(src, dst, share / per_peer, costs, track, label, true, per_peer);
    }
  }
}

}  // namespace ccforge::sim::nccl
