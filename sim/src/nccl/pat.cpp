#include <fmt/core.h>

#include <algorithm>

#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "send_order.hpp"

namespace ccforge::sim::nccl {
namespace {

// Pieces a rank passes on in dimension d: the offsets s in [1, n) whose lowest set bit is d (the odd
// multiples of 2^d below n).
int pieces_in_dim(int n, int d) { return (((n - 1) >> d) + 1) / 2; }

// PAT cuts each rank's piece into Simple steps and replays the whole pattern per step
// (PatAGAlgorithm: offset += chunkCount) of ir::step_bytes(Simple).
const double kPatChunkBytes = static_cast<double>(ir::step_bytes(ir::Protocol::Simple));

}  // namespace

void lower_pat(Lowering& low, const NcclCall& call) {
  const topo::Topology& topo = low.topo();
  const ProtocolCosts costs = protocol_costs(low.params(), ir::Protocol::Simple, low.topo());
  const int n = topo.num_gpus();
  int dims = 0;
  while ((1 << dims) < n) ++dims;
  const bool gather = call.coll == ir::Collective::AllGather;
  const std::uint32_t label = low.graph().add_label(gather ? "pat allgather" : "pat reducescatter");
  // One GPU per node: every channel takes the same NIC, so one weighted channel stands for all.
  const double weight = call.nchannels;
  std::vector<int> tracks(n);
  for (int r = 0; r < n; ++r) tracks[r] = low.track(fmt::format("rank {} ch 0 x{} (pat)", r, call.nchannels));
  std::vector<std::vector<SendOrder>> order(n, std::vector<SendOrder>(dims));
  double remaining = call.bytes / n / call.nchannels;
  while (remaining > 0.0) {
    const double chunk = std::min(kPatChunkBytes, remaining);
    remaining -= chunk;
    // recv[r][d]: the transfer into rank r in dimension d, this chunk.
    std::vector<std::vector<TaskId>> recv(n, std::vector<TaskId>(dims));
    std::vector<std::vector<char>> has_recv(n, std::vector<char>(dims, 0));
    for (int k = 0; k < dims; ++k) {
      // Allgather goes from the farthest dimension to the nearest, reducescatter the other way.
      const int d = gather ? dims - 1 - k : k;
      const int pieces = pieces_in_dim(n, d);
      std::vector<TaskId> sent(n);
      for (int r = 0; r < n; ++r) {
        const int dst = gather ? (r - (1 << d) + n) % n : (r + (1 << d)) % n;
        const TaskId t = low.add_transfer(r, dst, pieces * chunk, costs, tracks[r], label, true, weight);
        // What r forwards in dimension d arrived in the dimensions visited before.
        for (int e = 0; e < dims; ++e) {
          if (has_recv[r][e]) low.graph().depend(recv[r][e], t);
        }
        order[r][d].chain(low.graph(), t, crosses_network(topo, r, dst));
        sent[r] = t;
      }
      for (int r = 0; r < n; ++r) {
        const int dst = gather ? (r - (1 << d) + n) % n : (r + (1 << d)) % n;
        recv[dst][d] = sent[r];
        has_recv[dst][d] = 1;
      }
    }
  }
}

}  // namespace ccforge::sim::nccl
