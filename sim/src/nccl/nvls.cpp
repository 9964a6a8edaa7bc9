#include <algorithm>

#include <fmt/core.h>

#include "costs.hpp"
#include "nccl_lowering.hpp"

namespace ccforge::sim::nccl {
namespace {

// NVLS moves each rank's shard in chunks of 128 KiB (NCCL src/transport/nvls.cc NCCL_NVLS_CHUNKSIZE).
constexpr double kNvlsChunk = 128.0 * 1024;

struct NvlsPaths {
  std::vector<PathId> reduce;     // per owner rank: every port sends, the owner's port receives
  std::vector<PathId> multicast;  // per owner rank: the owner's port sends, every port receives
};

NvlsPaths nvls_paths(Lowering& low) {
  const int p = low.topo().num_gpus();
  NvlsPaths paths;
  for (int owner = 0; owner < p; ++owner) {
    std::vector<std::pair<int, int>> in, out;
    for (int r = 0; r < p; ++r) {
      if (r == owner) continue;
      in.emplace_back(r, owner);
      out.emplace_back(owner, r);
    }
    paths.reduce.push_back(low.union_path(in));
    paths.multicast.push_back(low.union_path(out));
  }
  return paths;
}

}  // namespace

void lower_nvls(Lowering& low, const NcclCall& call) {
  const ProtocolCosts costs = protocol_costs(low.params(), ir::Protocol::Simple, low.arch());
  const double efficiency = low.params().get(std::string("sim.nvls.efficiency.") + arch_key(low.arch()));
  const int p = low.topo().num_gpus();
  const SimTime delay = low.topo().route(0, p > 1 ? 1 : 0).latency + costs.sync_nvlink;
  const bool reduce = call.coll != ir::Collective::AllGather;
  const bool gather = call.coll != ir::Collective::ReduceScatter;
  const NvlsPaths paths = nvls_paths(low);
  const std::uint32_t reduce_label = low.graph().add_label("nvls ld_reduce");
  const std::uint32_t mcast_label = low.graph().add_label("nvls multicast");
  for (int c = 0; c < call.nchannels; ++c) {
    for (int r = 0; r < p; ++r) {
      const int rtrack = low.track(fmt::format("rank {} ch {} (nvls reduce)", r, c));
      const int mtrack = low.track(fmt::format("rank {} ch {} (nvls multicast)", r, c));
      double remaining = call.bytes / p / call.nchannels;
      TaskId last_reduce = 0, last_mcast = 0;
      bool started = false;
      while (remaining > 0.0) {
        const double chunk = std::min(kNvlsChunk, remaining);
        remaining -= chunk;
        const double wire = chunk / efficiency;
        TaskId reduced = 0;
        if (reduce) {
          reduced = low.add_fabric_op(paths.reduce[r], wire, costs.tb_bytes_per_s, delay, rtrack, reduce_label);
          if (started) low.graph().depend(last_reduce, reduced);
          last_reduce = reduced;
        }
        if (gather) {
          const TaskId m = low.add_fabric_op(paths.multicast[r], wire, costs.tb_bytes_per_s, delay, mtrack, mcast_label);
          if (reduce) low.graph().depend(reduced, m);
          if (started) low.graph().depend(last_mcast, m);
          last_mcast = m;
        }
        started = true;
      }
    }
  }
}

}  // namespace ccforge::sim::nccl
