// What the output directory ships per band, decided once the bands are known: only collectives the
// runtime schedules, rooted collectives only on request, and for every in-place winner an out-of-place
// variant where one is proven, fits the runtime and still beats NCCL across the band.
#pragma once

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::search {

// Sets each band's file, out-of-place variant and note.
void plan_exports(const topo::Topology& topo, TuneResult& result, const TuneOptions& options, const sim::SimParams& params,
                  DataType dtype);

}  // namespace ccforge::search
