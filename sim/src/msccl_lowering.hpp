// The MSCCL simulation with its one internal switch exposed, for tests that check the closed form
// against the full step-by-step run.
#pragma once

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {

// `extrapolate` false simulates every tile iteration; true adds provably periodic ones in closed form
// (engine.hpp run_extrapolated). sim::simulate() extrapolates unless it writes a trace.
SimResult simulate_msccl(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call,
                         const SimParams& params, Trace* trace, bool extrapolate);

// Throws DiagError unless `algo` is for as many GPUs as `topo` has (simulate and time_floors refuse it).
void check_gpu_count(const topo::Topology& topo, const ir::Algorithm& algo);

// Bytes of a chunk one lowered iteration moves: one buffer slot (ir::step_bytes), the executor's whole
// tile for LL and LL128, a quarter of it for Simple.
ByteCount msccl_iteration_bytes(ir::Protocol proto);

}  // namespace ccforge::sim
