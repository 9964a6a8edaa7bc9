// Public interface of the search part: the candidate generator library (a registry of parameterised
// algorithm templates, each written through ir::AlgorithmBuilder), ring discovery on the topology,
// lower bounds per topology and collective, and spanning-tree-packing synthesis.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/data_type.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/common/params.hpp"
#include "ccforge/common/run_metadata.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/search/expected_error.hpp"
#include "ccforge/search/nccl_tuner.hpp"
#include "ccforge/search/work_share.hpp"
#include "ccforge/sim/selection_table.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::search {

// What a generator is asked to produce. Rooted collectives (broadcast, reduce, gather, scatter) use
// root rank 0: MSCCL XML has no root attribute, so exported rooted algorithms assume root 0.
struct GenRequest {
  ir::Collective collective = ir::Collective::AllReduce;
  int ngpus = 0;
  int gpus_per_node = 0;  // 0 means all GPUs on one node
  ir::Protocol protocol = ir::Protocol::Simple;
  int channels = 1;   // parallel structures (rings, trees) for generators that have them, else 1
  int instances = 1;  // replication of the whole algorithm over fresh channels (msccl-tools "instances")
  int chunks = 1;     // pipeline pieces per segment (chain/tree/ring depth pipelining)
  int spread = 1;     // ring: channels each ring's segments are dealt over (msccl-tools ring "channels")
  // In-place (the executor's buffer aliasing) or out-of-place. Alltoall generators build out-of-place
  // only (an in-place alltoall overwrites chunks other ranks still read).
  bool inplace = true;
  // Ring orders (ranks in ring order), one per channel, from find_rings(); empty means 0,1,..,p-1.
  std::vector<std::vector<int>> rings;
  // Spanning trees for the tree-packing generator, from pack_trees(); ignored by the others.
  struct Tree {
    int root = 0;
    std::vector<int> parent;  // parent[rank], -1 for the root
  };
  std::vector<Tree> trees;
};

// Why a generator cannot serve a request; empty when it can.
struct Support {
  std::string why_not;
  bool ok() const { return why_not.empty(); }
};

// The values a tune tries for a generator, each a knob the executor exposes: channels (rings),
// instances (replication over fresh channels, as the published NDv4/NDv5 files use 2-8), chunks
// (pipeline depth, or reduction lanes), spread. Small on purpose: an 8-GPU tune finishes in seconds.
struct CandidateGrid {
  std::vector<int> channels{1};
  std::vector<int> instances{1, 2, 4};
  std::vector<int> chunks{1};
  std::vector<int> spread{1};
};

// What a tune feeds a generator beyond its grid.
struct GeneratorTraits {
  bool needs_trees = false;           // builds on spanning trees from pack_trees (GenRequest::trees)
  bool channels_are_rings = false;    // one ring per channel: also tried with every ring find_rings found
};

struct GeneratorInfo {
  std::string_view name;
  std::string_view description;
  std::string_view citation;
  std::vector<ir::Collective> collectives;
  Support (*supports)(const GenRequest&);
  ir::Algorithm (*generate)(const GenRequest&);  // precondition: supports(request).ok()
  CandidateGrid grid;
  GeneratorTraits traits;
};

// The registry, in a fixed order (the order `ccforge tune --list` prints and ties are broken in).
const std::vector<GeneratorInfo>& generators();
const GeneratorInfo* find_generator(std::string_view name);

// Checks the generator's static applicability, then builds. A builder limit (steps per tb, tbs per
// channel, channels, cnt) surfaces as an unsupported combination carrying the builder's message.
struct Generated {
  std::optional<ir::Algorithm> algorithm;
  std::string why_not;
};
Generated try_generate(const GeneratorInfo& gen, const GenRequest& request);

// Up to `count` ring orders over the GPUs of `topo`. On an NVSwitch (or any single switch) all rings
// are equivalent and the identity order is repeated; on direct-connect graphs (DGX-1 hybrid cube-mesh,
// xGMI meshes) rings are Hamiltonian cycles over direct GPU-GPU links that use disjoint link capacity,
// so fewer than `count` may come back; multi-node rings visit nodes in order, ring j entering each node
// at the j-th local GPU whose NIC is in service on every node (local GPU j on a healthy rail-optimised
// cluster), so that its crossings use that rail: at most one ring per such rail (sim/node_rings.hpp).
std::vector<std::vector<int>> find_rings(const topo::Topology& topo, int count);

// Lower bounds (algorithms.md §10) on the time of one call with `bytes` as nccl-tests counts them
// (allreduce/broadcast/reduce: per-rank buffer; allgather/reducescatter/gather/scatter: total; alltoall:
// per-rank send buffer). With the simulator's model (sim::build_model) the bound uses its link
// capacities, NVLS efficiency and per-call base costs, so that nothing the simulator runs (MSCCL
// algorithms, NCCL's ring/tree/NVLS/p2p) is faster and the best of them come close; without it, the raw
// hardware bound. The binding mechanism's terms (plain transfers, or NVLS in-switch reduction):
struct LowerBound {
  SimTime bandwidth;  // cut: the busiest GPU port's (or node's NICs') bytes over its rate
  SimTime latency;    // fixed: per-call base plus the fastest route latency (plus NVLS's step sync)
  SimTime total() const { return latency + bandwidth; }
};
LowerBound lower_bound(const topo::Topology& topo, ir::Collective coll, ByteCount bytes,
                       const sim::Model* sim_model = nullptr);

// Spanning-tree packing (Blink / ForestColl) over direct GPU-GPU links.
struct TreePacking {
  // Optimal allgather throughput per root, bytes/s each root's data spreads at (max-flow bound).
  Bandwidth optimal_rate;
  // Trees (each carries an equal share of its root's data), trees_per_root per GPU, root-major.
  std::vector<GenRequest::Tree> trees;
  int trees_per_root = 0;
  Bandwidth packed_rate;  // rate the packed trees achieve (<= optimal_rate)
};
// Capacity graph: cap[u][v] is the direct link bandwidth u->v (0 when none), bytes/s.
using CapacityMatrix = std::vector<std::vector<double>>;
CapacityMatrix direct_link_capacity(const topo::Topology& topo);
// Returns nullopt when the graph is not strongly connected over direct links.
std::optional<TreePacking> pack_trees(const CapacityMatrix& cap, int trees_per_root);

// Which way a packed tree's data moves: away from the root (allgather, broadcast), towards it
// (reducescatter, reduce), or both (allreduce: reduce up the tree, then spread down the same tree).
enum class TreeTraffic { Down, Up, Both };
TreeTraffic tree_traffic(ir::Collective coll);

// The graph tree packing runs on, as the simulator moves data: vertices 0..gpus-1 are the GPUs (rank
// order), further vertices are relays (NVSwitch, PCIe switches, CPUs) that forward but never end a
// tree edge. A tree edge u->v is a transfer over u's route to v, so it loads every link of that route
// (and, for TreeTraffic::Both, of v's route back to u); GPU pairs whose route passes through another GPU
// are not tree edges (that path is two tree edges).
struct PackingGraph {
  struct Link {
    int from = 0, to = 0;
    double bytes_per_s = 0.0;
  };
  int gpus = 0;
  int vertices = 0;
  std::vector<Link> links;
  std::vector<std::vector<std::vector<int>>> edge_links;  // [u][v]: indices into links; empty: no edge
  bool switched = false;  // some tree edge crosses a relay (a switch graph, not direct GPU links)
};
PackingGraph packing_graph(const topo::Topology& topo, TreeTraffic traffic);
PackingGraph packing_graph(const CapacityMatrix& cap);  // one link per nonzero entry, down traffic
// Returns nullopt when some GPU cannot reach every other over tree edges. The optimal rate is the
// allgather bound over the links tree edges use (relays included, as ForestColl); the packed rate
// counts the graph's traffic direction(s).
std::optional<TreePacking> pack_trees(const PackingGraph& graph, int trees_per_root);

// The tree sets `treepack` is offered for `coll` on `topo`: one tree per root and the fewest trees per
// root reaching the best packed rate. Single-node topologies only (multi-node is `hierarchical`'s);
// on switch graphs only where the packing loads its busiest link less than the identity ring does
// (NVSwitch: never, every GPU's port is the bottleneck either way; PCIe trees, degraded links: yes).
std::vector<std::vector<GenRequest::Tree>> synthesis_tree_sets(const topo::Topology& topo, ir::Collective coll);

// ---------------------------------------------------------------------------------------------------
// Tuning: candidates for a topology, simulated at every size, winners per size, merged into bands.

struct Candidate {
  std::string name;  // the algorithm's name, unique within a collective
  std::string generator;
  GenRequest request;
  ir::Algorithm algorithm;
};
struct Rejection {
  std::string name;
  std::string reason;  // generator declined, builder limit, or the checker's first issue
};
struct CandidateSet {
  std::vector<Candidate> accepted;  // passed ir::check
  std::vector<Rejection> rejected;
};
// The runtime that will load the exported files and the GPU it runs them on: the topology's GPU vendor
// picks the runtime (ir::runtime_for_vendor) unless `runtime` overrides it; the smallest SM/CU count
// over the topology's GPUs bounds the threadblocks that can be resident at once.
struct DeployTarget {
  ir::Runtime runtime = ir::Runtime::MscclNccl;
  int multiprocessors = 0;
};
DeployTarget deploy_target(const topo::Topology& topo, std::optional<ir::Runtime> runtime = std::nullopt);

// Every generator x its parameter grid for `coll` on `topo` (rings from find_rings, trees from
// pack_trees, gpus_per_node from the topology), each built and proven by ir::check, and accepted only
// when `target`'s runtime can load and run it (ir::check_loadable); rejections say why.
CandidateSet enumerate_candidates(const topo::Topology& topo, ir::Collective coll, const DeployTarget& target);
CandidateSet enumerate_candidates(const topo::Topology& topo, ir::Collective coll);  // deploy_target(topo)

// Simulated times of one collective at one size. times[i] belongs to candidate i; nullopt where the
// candidate cannot run that size (chunks do not divide it into whole elements) or was pruned there.
struct SizeResult {
  ByteCount bytes = 0;
  SimTime nccl;
  sim::NcclChoice nccl_choice;  // what NCCL runs there (its simulated time is `nccl`)
  std::vector<std::optional<SimTime>> times;
  SimTime lower_bound;
};

struct Choice {
  ByteCount bytes = 0;
  SimTime nccl;
  SimTime best;     // the chosen time: the winner's, or NCCL's where NCCL is kept
  int winner = -1;  // candidate index, -1 when NCCL is kept
  SimTime lower_bound;
  int fastest = -1;     // the fastest candidate, the winner unless NCCL is kept; -1 when none ran
  ExpectedError error;  // the fastest candidate's expected error
};
// The expected error of candidate `candidate`'s predicted speedup at `bytes`.
using ErrorOf = std::function<ExpectedError(int candidate, ByteCount bytes)>;
// Fastest candidate per size (ties: lower candidate index); NCCL is kept unless the candidate beats it
// by min_gain once its predicted gain is discounted by its expected error: nccl >= (1 + min_gain) x
// (1 + error) x time (beats_nccl with required_gain). Without `error_of` no error is assumed.
std::vector<Choice> choose(const std::vector<SizeResult>& sizes, double min_gain, const ErrorOf& error_of = {});
// The gain a candidate must predict so that, off by `error_pct` %, it still beats NCCL by min_gain.
double required_gain(double min_gain, double error_pct);
// Whether a candidate taking `time` replaces NCCL taking `nccl`: at least `min_gain` faster, i.e.
// nccl >= (1 + min_gain) * time. Selection and pruning (a floor that cannot beat NCCL) both ask this.
bool beats_nccl(SimTime time, SimTime nccl, double min_gain);

struct Band {
  ByteCount min_bytes = 0;
  ByteCount max_bytes = 0;  // inclusive
  int winner = -1;          // -1: NCCL (no file)
  // "algorithms/<name>.xml" relative to the output directory ("algorithms-rooted/" for rooted
  // collectives under --export-rooted); empty for NCCL and for winners the runtime cannot use.
  std::string file;
  // The winner rebuilt out-of-place (the winners are in-place), proven, fit for the runtime and still
  // beating NCCL by min_gain at every size of the band; empty file when there is none.
  std::optional<ir::Algorithm> outofplace;
  std::string outofplace_file;
  std::vector<SimTime> outofplace_times;  // at the band's tuned sizes, in order
  std::string note;  // why NCCL is kept, why the winner is not exported, why it has no out-of-place file
};
// Adjacent sizes with the same winner form one band; a band reaches up to one byte below the next
// band's first size, so bands are disjoint and cover [first size, last size].
std::vector<Band> merge_bands(const std::vector<Choice>& choices);

// How far a tune is: its phase (kTunePhases) and the pieces of work of that phase done and known.
struct TuneProgress {
  std::string_view phase;
  std::size_t done = 0, total = 0;
  std::size_t skipped = 0;  // of done: pruned or resumed, so no work was spent on them
};
// Seconds the phase still needs when its worked pieces (done less skipped) took `worked_s` in all: each
// piece not done costs the average worked one. Skipped pieces stay out of the average (they cost
// nothing), and pruning not yet known cannot be foreseen, so the estimate overstates by at most the
// pieces still to be pruned. 0 once all are done; null while the total is unknown or no piece was worked.
std::optional<double> phase_seconds_left(const TuneProgress& progress, double worked_s);
// The phases that report progress, in order: candidate grid points built and proven, per-candidate time
// floors, (candidate or NCCL, size) simulations finished or pruned, NCCL's own space per collective,
// out-of-place variants built and then simulated per (variant, size).
inline constexpr std::string_view kPhaseCandidates = "building candidates", kPhaseFloors = "time floors",
                                  kPhaseSimulations = "simulations", kPhaseNcclSpace = "NCCL space",
                                  kPhaseOutOfPlace = "out-of-place variants";

struct TuneOptions {
  std::vector<ir::Collective> collectives;
  std::vector<ByteCount> sizes;  // ascending
  double min_gain = 0.03;
  int jobs = 0;  // 0: all cores
  DataType dtype = DataType::Half;  // decides which sizes split into a candidate's whole chunks
  std::filesystem::path out_dir;
  bool resume = false;
  bool write_candidates = false;  // also every checked candidate as out_dir/candidates/<collective>_<name>.xml
  // Skip a candidate at a size when it cannot be chosen there: its floor (the larger of its time at a
  // smaller size, since a larger call never runs faster, and sim::time_floors) already exceeds the best
  // time of the most promising candidates, or NCCL's time divided by (1 + min_gain). The winners are
  // the same as without pruning.
  bool prune = true;
  // The runtime the exported files are for (default: the topology's GPU vendor's, deploy_target).
  std::optional<ir::Runtime> runtime;
  // Rooted collectives (broadcast, reduce, gather, scatter) are tuned and reported, but their files
  // assume root 0 while the runtimes use them for any root: exported only on request, into
  // algorithms-rooted/.
  bool export_rooted = false;
  // Collectives a re-tune into the same directory does not cover are carried over from the earlier
  // tune (same topology and runtime); `replace` drops them instead.
  bool replace = false;
  // Also search NCCL's own space per size (every algorithm x protocol x channels NCCL can run) and
  // write nccl-tuner.conf for the stock-NCCL tuner plugin. Unset: only up to kNcclSpaceAutoRanks GPUs,
  // since simulating NCCL's LL trees and rings on 128 GPUs costs seconds per point (hours per tune).
  std::optional<bool> nccl_space;
  // Called from worker threads (serialised) as each phase starts, after each finished piece of work in
  // it, and once at its end.
  std::function<void(const TuneProgress&)> progress;
  // Written as report.json's "metadata" (schema, ccforge version, command line, input hashes) when set.
  std::optional<RunMetadata> metadata;
  // The job's processes that share the work (each checkpoints to its own file; rank 0 writes every
  // output, the same files a single process writes); nullptr: this process alone.
  const WorkShare* share = nullptr;
};

struct CollectiveTune {
  ir::Collective collective;
  CandidateSet candidates;
  std::vector<SizeResult> sizes;
  std::vector<Choice> choices;
  std::vector<Band> bands;
  NcclSpaceTune nccl_space;  // NCCL's own space at every size, and the bands written to nccl-tuner.conf
};
inline constexpr int kNcclSpaceAutoRanks = 16;

// One phase of a tune: wall and process CPU seconds, and the peak resident memory when it ended.
struct PhaseTime {
  std::string name;
  double wall_s = 0.0, cpu_s = 0.0;
  double peak_rss_mib = 0.0;  // the process's high-water mark so far (getrusage)
};

// What one process of a tune's job did and used, for report.json.
struct ProcessUsage {
  double cpu_s = 0.0, peak_rss_mib = 0.0;
  std::size_t simulations = 0;    // simulated by this process (not resumed, not received)
  std::size_t points_proven = 0;  // candidate grid points built and proven by this process
};

// One of a tune's longest simulations (this process's), for report.json: where the time went.
struct SlowSimulation {
  std::string task;  // collective/candidate/bytes, as the checkpoint names it
  double wall_s = 0.0;
  SimTime floor, time;  // the candidate's model floor (0 for NCCL or without pruning) and simulated time
};
inline constexpr std::size_t kSlowestSimulationsReported = 12;

struct TuneResult {
  std::string topology;
  // The inter-node transport ("efa", ...) with the plugin NCCL drives it through; empty on one node.
  std::string transport;
  bool nccl_space_searched = false;  // nccl-tuner.conf written (TuneOptions::nccl_space)
  int ranks = 0;
  DeployTarget target;
  std::vector<std::string> carried_over;  // collectives kept from an earlier tune in out_dir
  std::string replaced;  // non-empty: an earlier tune of another machine or runtime in out_dir was replaced
  int nodes = 1, ranks_per_node = 1;  // the communicator shape nccl-tuner.conf's rules are for
  std::vector<CollectiveTune> collectives;
  std::size_t simulations = 0;    // simulated (candidate or NCCL, size) pairs, including resumed ones
  std::size_t pruned = 0;         // (candidate, size) pairs skipped because they could not win
  std::size_t pruned_above_best = 0;          // of those: floor above the best time of the first wave
                                              // (the rest: floor cannot beat NCCL by min_gain)
  std::size_t pruned_by_time_floor_only = 0;  // of those: skipped thanks to sim::time_floors alone (the
                                              // candidate's smaller-size time would not have sufficed)
  std::size_t resumed_tasks = 0;  // simulations taken from the checkpoint
  std::size_t points_proven = 0;  // candidate grid points built and proven by this run
  std::size_t points_resumed = 0;  // of the others: verdicts taken from the checkpoint (accepted ones proven again)
  std::size_t floors_resumed = 0;  // candidates whose time floors came from the checkpoint
  double elapsed_s = 0.0;
  double candidates_s = 0.0;  // of elapsed_s: building and proving the candidates
  double exports_s = 0.0;     // of elapsed_s: building, proving and simulating out-of-place variants
  std::vector<PhaseTime> phases;  // in order: candidates, floors, simulations, nccl_space, exports
  std::vector<ProcessUsage> processes;  // per process of the job (TuneOptions::share), rank order; one alone
  std::vector<SlowSimulation> slowest;  // this process's longest simulations, longest first
};

// Runs the whole tune and writes every output under options.out_dir (atomically), checkpointing
// finished tasks to out_dir/checkpoint.json so that a killed run continues with options.resume. A
// candidate the simulator refuses at some size for any reason but the size not splitting into its
// chunks (unmatched sends, a deadlock under the executor's buffer slots) moves to candidates.rejected
// with the simulator's message and the first such size.
TuneResult tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params);
// The same with the candidates given, one set per options.collectives entry, instead of enumerated.
TuneResult tune(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params,
                std::vector<CandidateSet> candidates);

// selection.csv's rows (sim/selection_table.hpp), one per collective and size, in tune order.
std::vector<sim::SelectionRow> selection_rows(const TuneResult& result);

}  // namespace ccforge::search
