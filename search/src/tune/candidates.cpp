// The candidate grid: which parameter combinations of each generator the tuner tries. Grids are small
// on purpose (the tune must finish in seconds for 8 GPUs); each value is a knob the executor exposes:
// channels (rings), instances (replication over fresh channels, as the published NDv4/NDv5 files use
// 2-8), chunks (pipeline depth for chains and trees).

#include <algorithm>
#include <optional>

#include <fmt/core.h>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "program.hpp"
#include "tune/runtime_fit.hpp"

namespace ccforge::search {

namespace {

struct Grid {
  std::vector<int> channels{1};
  std::vector<int> instances{1};
  std::vector<int> chunks{1};
  std::vector<int> spread{1};
};

Grid grid_for(std::string_view generator) {
  if (generator == "ring") return {{1, 2, 4, 8}, {1, 2, 4}, {1}, {1, 4}};
  if (generator == "chain") return {{1, 2, 4}, {1, 4}, {1, 4, 8}};
  // chunks: allreduce reduction lanes (8 = one per rank, as the published NDv4/NDv5 allpairs files).
  if (generator == "direct" || generator == "twoshot") return {{1}, {1, 2, 4, 8}, {1, 8}};
  if (generator == "dbtree") return {{1}, {1, 2, 4}, {1, 4, 8}};
  if (generator == "bintree") return {{1}, {1, 4}, {1, 4, 8}};
  if (generator == "treepack") return {{1}, {1, 2}, {1, 2, 8}};  // 8: deep trees on switch graphs need pipelining
  if (generator == "hierarchical") return {{1}, {1, 2, 4}, {1, 4, 8}};  // chunks: allreduce pipeline pieces
  return {{1}, {1, 2, 4}, {1}};  // rd, rhd, bruck, scatter_allgather
}

constexpr int kMostRings = 8;

// Shared inputs of every request for this topology.
struct TopologyInputs {
  std::vector<std::vector<int>> rings;
  std::vector<std::vector<GenRequest::Tree>> tree_sets;  // one per trees-per-root choice
};

bool offers(const GeneratorInfo& gen, ir::Collective coll) {
  return std::find(gen.collectives.begin(), gen.collectives.end(), coll) != gen.collectives.end();
}

bool uses_trees(const GeneratorInfo& gen) { return gen.name == "treepack"; }

TopologyInputs topology_inputs(const topo::Topology& topo, ir::Collective coll) {
  TopologyInputs inputs;
  inputs.rings = find_rings(topo, kMostRings);
  // Trees are packed only for collectives a tree generator builds (not alltoall, gather, scatter).
  const auto& gens = generators();
  if (std::any_of(gens.begin(), gens.end(), [&](const GeneratorInfo& g) { return uses_trees(g) && offers(g, coll); }))
    inputs.tree_sets = synthesis_tree_sets(topo, coll);
  return inputs;
}

// What building one grid point gave: accepted, rejected before it existed (the generator or checker;
// may depend on the protocol), or built and proven but unfit for the runtime (never depends on it).
enum class Outcome { Accepted, Rejected, Unfit };

Outcome try_one(const GeneratorInfo& gen, const GenRequest& req, const DeployTarget& target, CandidateSet& out) {
  Proven p = build_proven(gen, req, target);
  if (!p.algorithm) {
    out.rejected.push_back({std::move(p.name), std::move(p.why_not)});
    return p.unfit ? Outcome::Unfit : Outcome::Rejected;
  }
  out.accepted.push_back({std::move(p.name), std::string(gen.name), req, std::move(*p.algorithm)});
  return Outcome::Accepted;
}

// The protocol only labels a schedule: no generator's steps depend on it (generators_test
// "ProtocolOnlyRelabelsTheSchedule") and neither the checker nor the runtime rules read it. So each grid
// point is built and proven once, with Simple, and copied (or its runtime rejection repeated) for LL and
// LL128 under the name candidate_name() gives them (the protocol is its last field); this was two thirds
// of the building and checking.
std::string relabelled_name(const std::string& simple_name, ir::Protocol protocol) {
  const std::string_view simple_label = ir::to_string(ir::Protocol::Simple);
  return simple_name.substr(0, simple_name.size() - simple_label.size()) + ir::to_string(protocol);
}

Candidate relabelled(const Candidate& simple, const GenRequest& req) {
  Candidate c = simple;
  c.name = relabelled_name(simple.name, req.protocol);
  c.request = req;
  c.algorithm.name = c.name;
  c.algorithm.protocol = req.protocol;
  return c;
}

// Every point of the generator's grid, in the order candidates are listed (protocol left Simple).
std::vector<GenRequest> grid_requests(const GeneratorInfo& gen, const topo::Topology& topo, ir::Collective coll,
                                      const TopologyInputs& inputs, std::size_t tree_set) {
  Grid grid = grid_for(gen.name);
  // Direct-connect graphs may have a ring count outside the grid (DGX-1: 6): try all of them too.
  const int rings_found = static_cast<int>(inputs.rings.size());
  if ((gen.name == "ring" || gen.name == "chain") && rings_found > 0 &&
      std::find(grid.channels.begin(), grid.channels.end(), rings_found) == grid.channels.end())
    grid.channels.push_back(rings_found);
  std::vector<GenRequest> requests;
  for (int ch : grid.channels)
    for (int inst : grid.instances)
      for (int k : grid.chunks)
        for (int spread : grid.spread) {
          GenRequest req;
          req.collective = coll;
          req.ngpus = topo.num_gpus();
          req.gpus_per_node = topo.num_nodes() > 1 ? topo.gpus_per_node() : 0;
          req.channels = ch;
          req.instances = inst;
          req.chunks = k;
          req.spread = spread;
          req.rings = inputs.rings;
          if (uses_trees(gen)) req.trees = inputs.tree_sets[tree_set];
          requests.push_back(std::move(req));
        }
  return requests;
}

}  // namespace

// Every runtime_misfit reason starts with this word (then the runtime's name).
constexpr std::string_view kRuntimeReason = "runtime ";

std::optional<std::string> runtime_misfit(const ir::Algorithm& algo, const DeployTarget& target) {
  ir::CheckReport report;
  ir::check_loadable(algo, ir::runtime_target(target.runtime), target.multiprocessors, report);
  if (report.ok()) return std::nullopt;
  const ir::CheckIssue& first = report.issues.front();
  return fmt::format("{}{}: {}: {}{}", kRuntimeReason, ir::to_string(target.runtime), first.rule, first.message,
                     report.issues.size() > 1 ? fmt::format(" (and {} more)", report.issues.size() - 1) : "");
}

Proven build_proven(const GeneratorInfo& gen, const GenRequest& req, const DeployTarget& target) {
  Generated g = try_generate(gen, req);
  if (!g.algorithm) return {candidate_name(gen.name, req), std::nullopt, std::move(g.why_not)};
  std::string name = g.algorithm->name;
  const ir::CheckReport report = ir::check(*g.algorithm);
  if (!report.ok())
    return {std::move(name), std::nullopt, "checker: " + report.issues.front().rule + ": " + report.issues.front().message};
  if (auto misfit = runtime_misfit(*g.algorithm, target)) return {std::move(name), std::nullopt, std::move(*misfit), true};
  return {std::move(name), std::move(g.algorithm), {}};
}

std::size_t runtime_rejections(const CandidateSet& set) {
  return static_cast<std::size_t>(std::count_if(set.rejected.begin(), set.rejected.end(),
                                                [](const Rejection& r) { return r.reason.starts_with(kRuntimeReason); }));
}

DeployTarget deploy_target(const topo::Topology& topo, std::optional<ir::Runtime> runtime) {
  DeployTarget target;
  bool amd = false;
  for (int r = 0; r < topo.num_gpus(); ++r) {
    const auto spec = topo::gpu_spec(topo.gpu(r).model);  // every loaded GPU's model is a known one
    amd = amd || spec->amd;
    if (target.multiprocessors == 0 || spec->multiprocessors < target.multiprocessors)
      target.multiprocessors = spec->multiprocessors;
  }
  target.runtime = runtime.value_or(ir::runtime_for_vendor(amd));
  return target;
}

CandidateSet enumerate_candidates(const topo::Topology& topo, ir::Collective coll) {
  return enumerate_candidates(topo, coll, deploy_target(topo));
}

CandidateSet enumerate_candidates(const topo::Topology& topo, ir::Collective coll, const DeployTarget& target) {
  const TopologyInputs inputs = topology_inputs(topo, coll);
  CandidateSet set;
  for (const GeneratorInfo& gen : generators()) {
    if (!offers(gen, coll)) continue;
    const std::size_t tree_choices = uses_trees(gen) ? inputs.tree_sets.size() : 1;
    for (std::size_t ts = 0; ts < tree_choices; ++ts) {
      std::vector<GenRequest> requests = grid_requests(gen, topo, coll, inputs, ts);
      // Per grid point, what its Simple build gave: an index in set.accepted, or one in set.rejected
      // when the runtime cannot run it.
      std::vector<std::optional<std::size_t>> simple_built(requests.size()), simple_unfit(requests.size());
      for (ir::Protocol proto : {ir::Protocol::Simple, ir::Protocol::LL, ir::Protocol::LL128})
        for (std::size_t i = 0; i < requests.size(); ++i) {
          requests[i].protocol = proto;
          if (simple_built[i]) {
            set.accepted.push_back(relabelled(set.accepted[*simple_built[i]], requests[i]));
          } else if (simple_unfit[i]) {
            const Rejection& r = set.rejected[*simple_unfit[i]];
            set.rejected.push_back({relabelled_name(r.name, proto), r.reason});
          } else {
            const Outcome outcome = try_one(gen, requests[i], target, set);
            if (proto != ir::Protocol::Simple) continue;
            if (outcome == Outcome::Accepted) simple_built[i] = set.accepted.size() - 1;
            if (outcome == Outcome::Unfit) simple_unfit[i] = set.rejected.size() - 1;
          }
        }
    }
  }
  return set;
}

}  // namespace ccforge::search
