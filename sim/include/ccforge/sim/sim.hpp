// Public interface of the sim part: a discrete-event alpha-beta simulator that runs an MSCCL algorithm
// (ir::Algorithm) or NCCL's own algorithms on a topology, with links shared max-min fairly, and NCCL's
// tuning model for its choice of algorithm, protocol and channel count. Thread-safe: no globals, the
// topology is read-only, each call owns its state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ccforge/common/data_type.hpp"
#include "ccforge/common/params.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/sim/constants.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/nccl_algo.hpp"
#include "ccforge/sim/run_conditions.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::sim {

struct SimParams {
  SimConstants constants = default_sim_constants();  // the model's constants, typed
  // What set a constant away from its default (a profile line, a flag), by profile name: --dump-params.
  std::map<std::string, std::string, std::less<>> param_sources;
  LaunchMode launch;     // how the benchmark drives the GPUs (nccl-tests -t/-g)
  NcclSettings nccl;     // NCCL_* variables of the run (NCCL's choice, channels)
};

// The named boundary of the constants (profiles, --dump-params, calibrate), declared in
// sim/src/params.cpp: every "sim." parameter with its value, unit and source.
ParamTable param_table(const SimParams& params);
ParamTable default_sim_params();  // param_table(SimParams{})
// Sets the parameter `name`; false when none has that name. The value is bound as given: a profile's
// values are range-checked by apply_profile, calibrate's stay inside their fitting bounds.
bool set_param(SimParams& params, std::string_view name, double value, std::string source);
// The current value of `name`; nullopt when no parameter has that name.
std::optional<double> param_value(const SimParams& params, std::string_view name);

// What nccl-tests reports per iteration of a call whose GPU work takes `device`: iterations are queued
// back to back, so a thread that launches on several GPUs (-g > 1) is done with an iteration only after
// launching a kernel on each, and the reported time is the longer of the two.
SimTime benchmark_iteration_time(SimTime device, const SimParams& params);

// Sets the NCCL version whose choices the baseline reproduces (from parse_nccl_version).
void set_nccl_version(SimParams& params, NcclVersion version);

// Achievable fraction of a link's raw rate (header and flow-control overhead) under `params`, by link
// kind; NVLink by the architecture of the GPUs it joins.
double link_efficiency(const SimConstants& params, topo::LinkKind kind, topo::GpuArch arch);

// The facts of the simulator's model that other parts bound or fit against, typed and read once from
// (topology, parameters): search's lower bounds use exactly what the lowerings and the time floor
// charge, and no other part spells a parameter name.
struct Model {
  std::vector<double> link_capacity;  // per topology link (LinkId order): bytes/s its flows share
  double nic_efficiency = 1.0;        // achievable share of a NIC's rate
  SimTime min_call_base;              // smallest per-call base of a call that is not NVLS (NCCL, MSCCL)
  SimTime nvls_base;                  // NVLS's whole-call latency
  std::optional<double> nvls_efficiency;  // NVLS payload per wire byte; nullopt where NVLS cannot run
};
Model build_model(const topo::Topology& topo, const SimParams& params);

// The wait before every NVLS operation: the multimem poll of the step flags and the fence after the
// step's loads and stores, two round trips through the switch, i.e. 4 x the one-way GPU-to-GPU latency.
SimTime nvls_step_handoff(SimTime one_way);

// The model constants a calibration may fit, each moving its own part of the size curve.
enum class Knob { BaseLL, BaseSimple, NvlsBase, NvlinkEfficiency, NvlsEfficiency };
// The profile name of `knob` for GPUs of `arch`; nullopt where `params` has none (NVLS before Hopper).
std::optional<std::string> knob_param(const SimParams& params, Knob knob, topo::GpuArch arch);

// Reads a profile (`ccforge calibrate` output) and splits it between its two owners: "sim." entries
// are applied to `params`; "link." entries come back as topology load options. Any other name, and a
// name either table does not know, and a sim. value out of its unit's range (a ratio outside (0, 1], a
// negative latency, a rate of 0), is a DiagError at its profile line.
topo::LoadOptions apply_profile(const std::filesystem::path& profile_path, SimParams& params);

// Chrome/Perfetto trace of one simulation: slices on threadblock tracks, link load as counters.
struct TraceSlice {
  int track = 0;
  std::string name;
  SimTime start;
  SimTime end;
  double wire_bytes = 0.0;  // bytes the task put on the wire (payload / protocol efficiency); 0 for local work
  int peer = -1;            // the rank a transfer goes to; -1 for local work
  int chunk = -1;           // the chunk an MSCCL step moves (its offset); -1 where the lowering has none
};
struct TraceCounter {
  int track = 0;
  SimTime at;
  double value = 0.0;  // GB/s carried by the link
};
// Tracks of a rank are named "rank N ..." by the lowerings; the JSON groups them into one process per
// rank, named by rank_labels.
struct Trace {
  std::vector<std::string> track_names;  // index == track id
  std::vector<TraceSlice> slices;
  std::vector<TraceCounter> counters;
  SimTime device_end;                    // the engine's makespan: when the last task finished
  std::vector<std::string> rank_labels;  // index == rank: "rank 0 (H100 SXM)"
  std::string protocol;                  // of every slice: LL, LL128, Simple
  int add_track(std::string name) {
    track_names.push_back(std::move(name));
    return static_cast<int>(track_names.size()) - 1;
  }
};
// Draws what the engine does not: the base latency the call pays after its last task (from
// device_end to `device`, the simulated time without the host launch) and the host's kernel launches
// (from 0 to `host_launch`, benchmark_iteration_time(0)), so that the trace ends at the reported time.
void add_latency_slices(Trace& trace, SimTime device, SimTime host_launch);
std::string to_chrome_trace_json(const Trace& trace);

struct SimResult {
  SimTime time;               // collective completion time, launch included
  std::string algorithm;      // what ran: "nccl:ring:LL", or the MSCCL algorithm's name
  std::uint64_t events = 0;   // discrete events processed (for the events/s benchmark)
  std::uint64_t transfers = 0;
};

// What one simulated call is: collective size as nccl-tests means it (allreduce, broadcast, reduce:
// the per-rank buffer; allgather, reducescatter, alltoall, gather, scatter: the total over ranks).
struct CallSpec {
  ByteCount bytes = 0;
  DataType dtype = DataType::Half;  // its size decides which sizes split into whole elements
  // Broadcast, reduce, gather, scatter under NCCL: where the chain or the p2p pattern starts or ends. An
  // MSCCL file has no root (runtimes run it as written, formats.md §1.5a): simulate() ignores it.
  int root = 0;
};

// What a call of `size` bytes moves as nccl-tests runs it: whole elements of `dtype` and, where the
// size is the total over ranks (ir::ranks_in_size), whole per-rank shares; 0 when not one whole share.
ByteCount call_bytes(ByteCount size, DataType dtype, ir::Collective coll, int ngpus);

// Simulates an MSCCL algorithm. Throws DiagError naming the algorithm file when it does not fit the
// topology (GPU count) or the call (size not divisible into nchunksperloop chunks of whole elements).
SimResult simulate(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call,
                   const SimParams& params, Trace* trace = nullptr);

// simulate() for a search over sizes: a call that does not split into the algorithm's nchunksperloop
// chunks of whole elements is nullopt, a result (the size is outside the algorithm's range) and not a
// fault. Everything else simulate() refuses (GPU count, unmatched sends, a deadlock under the executor's
// buffer slots) is still a DiagError.
std::optional<SimResult> simulate_if_fits(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call,
                                          const SimParams& params);

// Per call, a lower bound on simulate(topo, algo, call, params).time computed from the algorithm's
// structure without running events (sim/src/time_floor.cpp): link and issue-rate capacity, threadblock
// step chains, the first tile iteration's dependency chain, launch. Linear in steps once per algorithm,
// then in threadblocks per call; for pruning a search. Throws DiagError where the GPU count does not
// match, as simulate does.
std::vector<SimTime> time_floors(const topo::Topology& topo, const ir::Algorithm& algo, const std::vector<CallSpec>& calls,
                                 const SimParams& params);

// NCCL's algorithms and their names (ir/nccl_algo.hpp).
using ir::NcclAlgo;
using ir::to_string;

// "nccl", "nccl:ring", "nccl:ring:ll128" (case-insensitive); nullopt when not of that form.
struct NcclRequest {
  std::optional<NcclAlgo> algo;
  std::optional<ir::Protocol> proto;
};
std::optional<NcclRequest> parse_nccl_request(std::string_view text);

// NCCL's choice for one call, by its own tuning model (ncclTopoTuneModel + ncclTopoGetAlgoTime).
struct NcclChoice {
  NcclAlgo algo = NcclAlgo::Ring;
  ir::Protocol proto = ir::Protocol::Simple;
  int nchannels = 1;
  double model_us = 0.0;  // NCCL's own time estimate for the choice (0 for p2p: NCCL has no model)
  std::string name() const;  // "nccl:ring:LL"
  bool operator==(const NcclChoice&) const = default;
};
// Throws DiagError when `request` forces something NCCL cannot run there (e.g. NVLS without NVSwitch).
NcclChoice nccl_choose(const topo::Topology& topo, ir::Collective coll, ByteCount bytes,
                       const NcclRequest& request, const SimParams& params);

// Runs NCCL's chosen (or forced) algorithm as data movement on the topology.
SimResult simulate_nccl(const topo::Topology& topo, ir::Collective coll, const CallSpec& call,
                        const NcclRequest& request, const SimParams& params, Trace* trace = nullptr);

// Runs one point of NCCL's space as data movement: `point.algo` with `point.proto` on `point.nchannels`
// channels (what a tuner plugin may force). The point must be one nccl_space lists for the call.
SimResult simulate_nccl_point(const topo::Topology& topo, ir::Collective coll, const CallSpec& call,
                              const NcclChoice& point, const SimParams& params, Trace* trace = nullptr);

// "Why this algorithm": one point of NCCL's space (what a tuner plugin may force) and its simulated time.
struct NcclPointTime {
  NcclChoice point;
  SimTime time;
  bool default_channels = false;  // the channel count NCCL itself uses for this algorithm and protocol
  // Not simulated (a tune's pruning): `time` is a floor, already no faster than NCCL's pick.
  bool pruned = false;
};

// NCCL's space for one call (sim/src/nccl/nccl_space.cpp), not yet simulated (time 0): every algorithm x
// protocol NCCL's tuning model can run there, each on NCCL's own channel count for the call and on the
// other counts a tuner plugin may set (the communicator's full count, half of NCCL's). Empty for
// alltoall, gather and scatter (grouped send/recv: no choice for a tuner). NCCL's pick comes first.
std::vector<NcclPointTime> nccl_space(const topo::Topology& topo, ir::Collective coll, ByteCount bytes,
                                      const SimParams& params);

// Every point of nccl_space simulated at one call, NCCL's pick and the fastest.
struct NcclExplanation {
  ByteCount bytes = 0;
  std::vector<NcclPointTime> points;  // in nccl_space order: points[0] is NCCL's pick
  std::size_t best = 0;               // index of the fastest simulated point (ties: the earlier one)
  const NcclPointTime& pick() const { return points.front(); }
  const NcclPointTime& fastest() const { return points[best]; }
  // NCCL's pick takes at least (1 + min_gain) times the fastest point's time.
  bool pick_loses(double min_gain) const;
};
// Empty `points` where nccl_space is empty.
NcclExplanation explain_nccl(const topo::Topology& topo, ir::Collective coll, const CallSpec& call,
                             const SimParams& params);

// nccl-tests' algbw (doc/PERFORMANCE.md) = size / time; busbw = algbw * ir::bus_bandwidth_factor.
double algbw_gbs(ByteCount bytes, SimTime time);

}  // namespace ccforge::sim
