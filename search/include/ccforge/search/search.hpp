// Public interface of the search part: the candidate generator library (a registry of parameterised
// algorithm templates, each written through ir::AlgorithmBuilder), ring discovery on the topology,
// lower bounds per topology and collective, and spanning-tree-packing synthesis.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"

namespace ccforge::topo {
class Topology;
}

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

struct GeneratorInfo {
  std::string_view name;
  std::string_view description;
  std::string_view citation;
  std::vector<ir::Collective> collectives;
  Support (*supports)(const GenRequest&);
  ir::Algorithm (*generate)(const GenRequest&);  // precondition: supports(request).ok()
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
// so fewer than `count` may come back; multi-node rings visit nodes in order, GPUs in local order.
std::vector<std::vector<int>> find_rings(const topo::Topology& topo, int count);

// Lower bounds (algorithms.md §10) on the time of one call with `bytes` as nccl-tests counts them
// (allreduce/broadcast/reduce: per-rank buffer; allgather/reducescatter/gather/scatter: total; alltoall:
// per-rank send buffer).
struct LowerBound {
  SimTime bandwidth;  // cut bound: injection/ejection per GPU, network bisection across nodes
  SimTime latency;    // ceil(log2 p) rounds of the fastest GPU-GPU route latency
  SimTime total() const { return bandwidth > latency ? bandwidth : latency; }
};
LowerBound lower_bound(const topo::Topology& topo, ir::Collective coll, ByteCount bytes);

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

}  // namespace ccforge::search
