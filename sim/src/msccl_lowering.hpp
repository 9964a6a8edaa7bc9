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

// Connection slots (of ir::kNcclSteps) a send of `count` chunks of `chunk_bytes` holds in one lowered
// iteration until its receive ends: the executor moves it as ceil(count / ir::max_allowed_count) calls
// per tile, each advancing the connection by ir::steps_per_call steps whatever it carries, spread over
// the lowered iterations the chunk's tile spans. Simple: cnt slots at a tile or more per chunk, 4 per
// call below 512 KiB; LL/LL128: one per call. At most all 8 (a bigger send streams through them).
int msccl_send_slots(ir::Protocol proto, ByteCount chunk_bytes, int count);

}  // namespace ccforge::sim
