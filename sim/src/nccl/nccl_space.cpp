// NCCL's space of choices for one call (what a tuner plugin may force) and "why this algorithm": every
// point simulated, NCCL's own pick first. Built on nccl_choose/simulate_nccl_point and the communicator's
// channel count (nccl_model's view).
#include <algorithm>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/sim.hpp"
#include "nccl_model.hpp"

namespace ccforge::sim {
namespace {

constexpr NcclAlgo kTunableAlgos[] = {NcclAlgo::Tree, NcclAlgo::Ring, NcclAlgo::Nvls, NcclAlgo::NvlsTree, NcclAlgo::Pat};
constexpr ir::Protocol kProtocols[] = {ir::Protocol::LL, ir::Protocol::LL128, ir::Protocol::Simple};

bool grouped_send_recv(ir::Collective c) {
  return c == ir::Collective::AllToAll || c == ir::Collective::Gather || c == ir::Collective::Scatter;
}

bool same_point(const NcclChoice& a, const NcclChoice& b) {
  return a.algo == b.algo && a.proto == b.proto && a.nchannels == b.nchannels;
}

// Channel counts a tuner may set besides NCCL's own: the communicator's full count (NCCL thins channels
// for small calls, enqueue.cc topoGetAlgoInfo) and half of NCCL's count. NVLS (and RCCL's MSCCL
// all-pairs) run on their own fixed channel set, so only that count is offered there.
std::vector<int> channel_counts(const NcclChoice& own, int full) {
  if (own.algo == NcclAlgo::Nvls || own.algo == NcclAlgo::NvlsTree || own.algo == NcclAlgo::AllPairs) return {own.nchannels};
  std::vector<int> counts{own.nchannels};
  for (int c : {full, own.nchannels / 2})
    if (c >= 1 && std::find(counts.begin(), counts.end(), c) == counts.end()) counts.push_back(c);
  return counts;
}

}  // namespace

std::vector<NcclPointTime> nccl_space(const topo::Topology& topo, ir::Collective coll, ByteCount bytes,
                                      const SimParams& params) {
  if (grouped_send_recv(coll)) return {};
  const int full = nccl::make_view(topo, params).nchannels;
  const NcclChoice pick = nccl_choose(topo, coll, bytes, {}, params);
  std::vector<NcclPointTime> space{{pick, SimTime{0}, true, false}};
  for (NcclAlgo a : kTunableAlgos)
    for (ir::Protocol p : kProtocols) {
      NcclChoice own;
      try {
        own = nccl_choose(topo, coll, bytes, {a, p}, params);
      } catch (const DiagError&) {
        continue;  // NCCL's model cannot run (a, p) here
      }
      for (int channels : channel_counts(own, full)) {
        NcclChoice point = own;
        point.nchannels = channels;
        if (!same_point(point, pick)) space.push_back({point, SimTime{0}, channels == own.nchannels, false});
      }
    }
  return space;
}

bool NcclExplanation::pick_loses(double min_gain) const {
  return best != 0 && static_cast<double>(pick().time.ps) >= (1.0 + min_gain) * static_cast<double>(fastest().time.ps);
}

NcclExplanation explain_nccl(const topo::Topology& topo, ir::Collective coll, const CallSpec& call,
                             const SimParams& params) {
  NcclExplanation e{call.bytes, nccl_space(topo, coll, call.bytes, params), 0};
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    e.points[i].time = simulate_nccl_point(topo, coll, call, e.points[i].point, params).time;
    if (e.points[i].time < e.points[e.best].time) e.best = i;
  }
  return e;
}

}  // namespace ccforge::sim
