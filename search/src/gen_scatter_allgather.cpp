// Scatter + allgather broadcast (van de Geijn; Barnett et al. 1994, as in MPICH's long-message
// broadcast): root 0 sends block q to rank q directly, then the blocks circulate once around the ring,
// halving the root's egress compared with a chain at the cost of p-1 more latency steps.
#include "generators.hpp"
#include "program.hpp"

namespace ccforge::search {

Support scatter_ag_supports(const GenRequest& req) {
  if (auto s = check_common(req, {ir::Collective::Broadcast}); !s.ok()) return s;
  if (auto s = check_rings(req); !s.ok()) return s;
  return need(req.channels == 1, "scatter_allgather uses one ring: channels must be 1");
}

ir::Algorithm scatter_ag_generate(const GenRequest& req) {
  const int p = req.ngpus, k = req.chunks;
  Program prog(req, candidate_name("scatter_allgather", req), p * k, p * k, true);
  for (int q = 1; q < p; ++q) prog.send(in(0, q * k, k), in(q, q * k, k), 0);
  const auto o = ring_order(req, 0);
  for (int hop = 0; hop + 1 < p; ++hop)
    for (int x = 0; x < p; ++x) {
      const int owner = o[x], to = o[(x + hop + 1) % p];
      if (to == 0) continue;  // the root holds every block already; later hops read its original
      prog.send(in(o[(x + hop) % p], owner * k, k), in(to, owner * k, k), 0);
    }
  return prog.materialize();
}

}  // namespace ccforge::search
