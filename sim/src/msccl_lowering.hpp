// The MSCCL simulation with its one internal switch exposed, for tests that check the closed form
// against the full step-by-step run.
#pragma once

#include <vector>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {

// `extrapolate` false simulates every tile iteration; true adds provably periodic ones in closed form
// (engine.hpp run_extrapolated). sim::simulate() extrapolates unless it writes a trace.
SimResult simulate_msccl(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call,
                         const SimParams& params, Trace* trace, bool extrapolate);

// Throws DiagError unless `algo` is for as many GPUs as `topo` has (simulate and time_floors refuse it).
void check_gpu_count(const topo::Topology& topo, const ir::Algorithm& algo);

// Bytes of a chunk one lowered iteration moves: the executor's tile (ir::tile_bytes), one pass of
// its grid loop.
ByteCount msccl_iteration_bytes(ir::Protocol proto);

// prims_simple.h genericOp: a Simple step moving `bytes` in one call goes as SlicePerChunk
// (MSCCL_CHUNKSTEPS / MSCCL_SLICESTEPS) slices of at least a 32nd of a full slice; their sizes.
std::vector<double> simple_slices(double bytes);

}  // namespace ccforge::sim
