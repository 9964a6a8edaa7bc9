// The candidates of a tune: every point of each generator's grid (GeneratorInfo::grid, in the registry),
// built once, proven, and relabelled per protocol.

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>

#include <fmt/core.h>
#include <tbb/parallel_for.h>

#include "ccforge/search/search.hpp"
#include "ccforge/topology/topology.hpp"
#include "program.hpp"
#include "tune/candidates.hpp"
#include "tune/runtime_fit.hpp"
#include "tune/work_division.hpp"

namespace ccforge::search {

namespace {

constexpr int kMostRings = 8;

// Shared inputs of every request for this topology.
struct TopologyInputs {
  std::vector<std::vector<int>> rings;
  std::vector<std::vector<GenRequest::Tree>> tree_sets;  // one per trees-per-root choice
};

bool offers(const GeneratorInfo& gen, ir::Collective coll) {
  return std::find(gen.collectives.begin(), gen.collectives.end(), coll) != gen.collectives.end();
}

TopologyInputs topology_inputs(const topo::Topology& topo, ir::Collective coll) {
  TopologyInputs inputs;
  inputs.rings = find_rings(topo, kMostRings);
  // Trees are packed only for collectives a tree generator builds (not alltoall, gather, scatter).
  const auto& gens = generators();
  if (std::any_of(gens.begin(), gens.end(), [&](const GeneratorInfo& g) { return g.traits.needs_trees && offers(g, coll); }))
    inputs.tree_sets = synthesis_tree_sets(topo, coll);
  return inputs;
}

// The protocol only labels a schedule: no generator's steps depend on it (generators_test
// "ProtocolOnlyRelabelsTheSchedule") and the checker does not read it. So each grid point is built and
// proven once, with Simple, and copied (or its runtime rejection repeated) for LL and LL128 under the
// name candidate_name() gives them (the protocol is its last field); this was two thirds of the building
// and checking. One runtime rule reads the protocol (RCCL refuses LL128, runtime.protocol), so each copy
// is held to the runtime rules again.
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
  CandidateGrid grid = gen.grid;
  // Direct-connect graphs may have a ring count outside the grid (DGX-1: 6): try all of them too.
  const int rings_found = static_cast<int>(inputs.rings.size());
  if (gen.traits.channels_are_rings && rings_found > 0 &&
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
          if (gen.traits.needs_trees) req.trees = inputs.tree_sets[tree_set];
          requests.push_back(std::move(req));
        }
  return requests;
}

// One generator's grid for one collective (and tree set), and what each point built: per request and
// protocol (Simple, LL, LL128). LL and LL128 are built only where Simple was rejected before it existed
// (that may depend on the protocol); elsewhere they are copies of the Simple build (relabelled).
struct GridGroup {
  std::size_t coll;
  const GeneratorInfo* gen;
  std::size_t tree_set;
  std::vector<GenRequest> requests;  // protocol Simple
  std::vector<std::array<std::optional<Proven>, 3>> built;
};

constexpr std::array<ir::Protocol, 3> kProtocols{ir::Protocol::Simple, ir::Protocol::LL, ir::Protocol::LL128};

bool rejected_before_built(const Proven& p) { return !p.algorithm && !p.unfit; }

// Builds grid points of every group in parallel (each writes only its own slot, so the sets do not
// depend on the thread count), reporting each finished point. Shared among processes, each proves its
// share of the points and only regenerates the others' accepted ones once their verdicts arrive
// (proving is most of the cost: ndv5-x16's grid regenerated without proving took 4 of 98 s CPU).
class PointBuilder {
 public:
  PointBuilder(std::vector<GridGroup>& groups, const std::vector<ir::Collective>& colls, const DeployTarget& target,
               const BuildProgress& progress, CheckpointJournal* journal, BuildCounts& counts, WorkDivision division)
      : groups_(groups), colls_(colls), target_(target), progress_(progress), journal_(journal), counts_(counts),
        division_(division) {}

  void build_simple() {
    std::vector<Point> points;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      groups_[g].built.resize(groups_[g].requests.size());
      for (std::size_t i = 0; i < groups_[g].requests.size(); ++i) points.push_back({g, i, 0});
    }
    build(points);
  }

  void build_other_protocols() {
    std::vector<Point> points;
    for (std::size_t g = 0; g < groups_.size(); ++g)
      for (std::size_t i = 0; i < groups_[g].requests.size(); ++i)
        if (rejected_before_built(*groups_[g].built[i][0]))
          for (std::size_t p = 1; p < kProtocols.size(); ++p) points.push_back({g, i, p});
    build(points);
  }

 private:
  struct Point {
    std::size_t group, request, protocol;
  };

  void build(const std::vector<Point>& points) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      total_ += points.size();
    }
    // Now: this process's points and those the journal already has (resumed); later: the others',
    // regenerated once their verdicts arrive.
    const WorkDivision::Deal deal = division_.deal(points.size());
    std::vector<std::size_t> now = deal.mine, later;
    for (std::size_t k : deal.theirs) (known(key(points[k])) ? now : later).push_back(k);
    tbb::parallel_for(std::size_t{0}, now.size(), [&](std::size_t i) { build(points[now[i]]); });
    if (division_.alone()) return;  // (and journal_ may be null)
    division_.join(deal.mine, [&](std::size_t k) { return CheckpointJournal::line(key(points[k]), *known(key(points[k]))); },
                   *journal_);
    tbb::parallel_for(std::size_t{0}, later.size(), [&](std::size_t i) { build(points[later[i]], false); });
  }

  std::string key(const Point& pt) const {
    const GridGroup& group = groups_[pt.group];
    return fmt::format("built/{}/{}/{}/{}/{}", ir::to_string(colls_[group.coll]), group.gen->name, group.tree_set,
                       pt.request, ir::to_string(kProtocols[pt.protocol]));
  }

  // The journal's verdict on a point, if any; other points record meanwhile (map nodes stay put).
  const Verdict* known(const std::string& key) {
    if (!journal_) return nullptr;
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = journal_->verdicts().find(key);
    return it == journal_->verdicts().end() ? nullptr : &it->second;
  }

  // `own`: a verdict the journal has was this process's (a resumed one), not another's just received.
  void build(const Point& pt, bool own = true) {
    GridGroup& group = groups_[pt.group];
    GenRequest req = group.requests[pt.request];
    req.protocol = kProtocols[pt.protocol];
    const std::string key = this->key(pt);
    const Verdict* known = this->known(key);
    std::optional<Proven>& slot = group.built[pt.request][pt.protocol];
    slot = known ? rebuilt(*group.gen, req, *known, key, own) : build_proven(*group.gen, req, target_);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!known) {
      ++counts_.proven;
      if (journal_) journal_->record(key, Verdict{slot->name, slot->algorithm.has_value(), slot->unfit, slot->why_not});
    } else if (own) {
      ++counts_.resumed;
    }
    ++done_;
    if (progress_) progress_(done_, total_);
  }

  // A point the journal has a verdict for: the rejection as recorded (it can only keep a candidate out),
  // an accepted point read back proven again, since a forged "accepted" would ship a file the checker
  // or the runtime's rules reject; one another process just proved is only regenerated.
  Proven rebuilt(const GeneratorInfo& gen, const GenRequest& req, const Verdict& v, const std::string& key,
                 bool own) const {
    if (!v.accepted) return {v.name, std::nullopt, v.why_not, v.unfit};
    if (!own) {
      Generated g = try_generate(gen, req);
      if (g.algorithm && g.algorithm->name == v.name) return {v.name, std::move(g.algorithm), {}};
    }
    Proven p = build_proven(gen, req, target_);
    if (!p.algorithm && p.name == v.name)
      throw journal_->forged(key, fmt::format("'{}' is recorded as accepted, but {}", v.name, p.why_not));
    return p;
  }

  std::vector<GridGroup>& groups_;
  const std::vector<ir::Collective>& colls_;
  const DeployTarget& target_;
  const BuildProgress& progress_;
  CheckpointJournal* journal_;
  BuildCounts& counts_;
  WorkDivision division_;
  std::mutex mutex_;
  std::size_t done_ = 0, total_ = 0;
};

void add(Proven&& p, const GridGroup& group, const GenRequest& req, CandidateSet& out) {
  if (p.algorithm) out.accepted.push_back({std::move(p.name), std::string(group.gen->name), req, std::move(*p.algorithm)});
  else out.rejected.push_back({std::move(p.name), std::move(p.why_not)});
}

// Appends the group's candidates and rejections to `out` in the listed order: protocol, then grid point.
void assemble(GridGroup& group, const DeployTarget& target, CandidateSet& out) {
  // Per grid point, where its Simple build landed: an index in out.accepted, or in out.rejected when
  // the runtime cannot run it.
  std::vector<std::optional<std::size_t>> simple_built(group.requests.size()), simple_unfit(group.requests.size());
  for (std::size_t p = 0; p < kProtocols.size(); ++p)
    for (std::size_t i = 0; i < group.requests.size(); ++i) {
      GenRequest req = group.requests[i];
      req.protocol = kProtocols[p];
      if (simple_built[i]) {
        Candidate copy = relabelled(out.accepted[*simple_built[i]], req);
        if (std::optional<std::string> misfit = runtime_misfit(copy.algorithm, target))
          out.rejected.push_back({std::move(copy.name), std::move(*misfit)});
        else
          out.accepted.push_back(std::move(copy));
      } else if (simple_unfit[i]) {
        const Rejection& r = out.rejected[*simple_unfit[i]];
        out.rejected.push_back({relabelled_name(r.name, req.protocol), r.reason});
      } else {
        Proven& built = *group.built[i][p];
        const bool accepted = built.algorithm.has_value(), unfit = built.unfit;
        add(std::move(built), group, req, out);
        if (p != 0) continue;
        if (accepted) simple_built[i] = out.accepted.size() - 1;
        if (unfit) simple_unfit[i] = out.rejected.size() - 1;
      }
    }
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

namespace {

// runtime.ranks, the one runtime rule the request alone decides, as runtime_misfit words it.
std::optional<std::string> rank_count_misfit(const GenRequest& req, const DeployTarget& target) {
  std::optional<std::string> misfit = ir::rank_count_misfit(ir::runtime_target(target.runtime), req.ngpus);
  if (!misfit) return std::nullopt;
  return fmt::format("{}{}: runtime.ranks: {}", kRuntimeReason, ir::to_string(target.runtime), *misfit);
}

}  // namespace

Proven build_proven(const GeneratorInfo& gen, const GenRequest& req, const DeployTarget& target) {
  // A rank count the runtime cannot load rejects every program of it, so a point the generator supports
  // is judged before it is generated: on ndv5-x2048 (16,384 ranks, MAX_SUBS 1024) building, screening
  // and fitting the grid took 107 s and 1.9 GB for no loadable candidate.
  if (gen.supports(req).ok())
    if (std::optional<std::string> misfit = rank_count_misfit(req, target))
      return {candidate_name(gen.name, req), std::nullopt, std::move(*misfit), true};
  Generated g = try_generate(gen, req);
  if (!g.algorithm) return {candidate_name(gen.name, req), std::nullopt, std::move(g.why_not)};
  std::string name = g.algorithm->name;
  // The runtime's rules first: they are cheap, and an algorithm it cannot load never ships, so proving it
  // buys nothing (ndv5-x16's misfit 4-instance hierarchical allreduces took 9 of 31 s CPU to prove).
  if (auto misfit = runtime_misfit(*g.algorithm, target)) return {std::move(name), std::nullopt, std::move(*misfit), true};
  const ir::CheckReport report = ir::check(*g.algorithm);
  if (!report.ok())
    return {std::move(name), std::nullopt, "checker: " + report.issues.front().rule + ": " + report.issues.front().message};
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
    const topo::GpuModel& model = *topo.gpu(r).model;
    amd = amd || model.amd();
    if (target.multiprocessors == 0 || model.multiprocessors < target.multiprocessors)
      target.multiprocessors = model.multiprocessors;
  }
  target.runtime = runtime.value_or(ir::runtime_for_vendor(amd));
  return target;
}

CandidateSet enumerate_candidates(const topo::Topology& topo, ir::Collective coll) {
  return enumerate_candidates(topo, coll, deploy_target(topo));
}

CandidateSet enumerate_candidates(const topo::Topology& topo, ir::Collective coll, const DeployTarget& target) {
  BuildCounts counts;
  return std::move(enumerate_candidates(topo, std::vector<ir::Collective>{coll}, target, {}, nullptr, counts).front());
}

std::vector<CandidateSet> enumerate_candidates(const topo::Topology& topo, const std::vector<ir::Collective>& colls,
                                               const DeployTarget& target, const BuildProgress& progress,
                                               CheckpointJournal* journal, BuildCounts& counts, const WorkShare* share) {
  std::vector<TopologyInputs> inputs(colls.size());
  tbb::parallel_for(std::size_t{0}, colls.size(), [&](std::size_t c) { inputs[c] = topology_inputs(topo, colls[c]); });
  std::vector<GridGroup> groups;
  for (std::size_t c = 0; c < colls.size(); ++c)
    for (const GeneratorInfo& gen : generators()) {
      if (!offers(gen, colls[c])) continue;
      const std::size_t tree_choices = gen.traits.needs_trees ? inputs[c].tree_sets.size() : 1;
      for (std::size_t ts = 0; ts < tree_choices; ++ts)
        groups.push_back(GridGroup{c, &gen, ts, grid_requests(gen, topo, colls[c], inputs[c], ts), {}});
    }
  const WorkDivision division(journal ? share : nullptr);  // the verdicts travel through the journal
  PointBuilder builder(groups, colls, target, progress, journal, counts, division);
  builder.build_simple();
  builder.build_other_protocols();
  std::vector<CandidateSet> sets(colls.size());
  for (GridGroup& group : groups) assemble(group, target, sets[group.coll]);
  return sets;
}

}  // namespace ccforge::search
