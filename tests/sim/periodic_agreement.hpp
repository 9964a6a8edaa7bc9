// Shared by the periodic tests: sizes with many tile iterations and a partial last tile, and the
// comparison of the closed form (simulate_msccl with extrapolation) with the full simulation.
#pragma once

#include <gtest/gtest.h>

#include "ccforge/sim/sim.hpp"
#include "msccl_lowering.hpp"

namespace ccforge::sim::periodic_testing {

inline CallSpec half(ByteCount bytes) { return CallSpec{bytes, DataType::Half}; }

// A size whose chunks hold `tiles` whole tiles and a partial one (a third of a tile, whole elements).
inline ByteCount size_with_partial_tile(const ir::Algorithm& algo, ByteCount tiles) {
  const ByteCount tile = msccl_iteration_bytes(algo.protocol);
  const ByteCount chunk = tiles * tile + (tile / 3 / 2) * 2;
  const ByteCount executor_bytes = chunk * algo.nchunksperloop;
  // nccl-tests size from the executor's nBytes (they differ only for gather and scatter).
  return executor_bytes * ir::ranks_in_size(algo.collective, algo.ngpus) / ir::size_multiplier(algo.collective, algo.ngpus);
}

struct Agreement {
  int compared = 0;
  int extrapolated = 0;
};

inline void expect_agreement(const topo::Topology& topo, const ir::Algorithm& algo, ByteCount bytes, Agreement& tally) {
  const SimParams params;
  const SimResult full = simulate_msccl(topo, algo, half(bytes), params, nullptr, false);
  const SimResult closed = simulate_msccl(topo, algo, half(bytes), params, nullptr, true);
  EXPECT_EQ(closed.time, full.time) << algo.name << " at " << bytes << " B: " << closed.time.us() << " vs "
                                    << full.time.us() << " us";
  ++tally.compared;
  if (closed.events < full.events) ++tally.extrapolated;
}

}  // namespace ccforge::sim::periodic_testing
