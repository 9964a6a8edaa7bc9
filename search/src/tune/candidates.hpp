// Building every collective's candidates for a tune: all grid points of all collectives in one parallel
// loop, with progress, and with the verdicts a killed run's checkpoint already has reused.
#pragma once

#include <functional>
#include <vector>

#include "ccforge/search/search.hpp"
#include "tune/checkpoint.hpp"

namespace ccforge::search {

// Called (serialised) after each built grid point: points built so far, points known so far (a point
// rejected before it was built with Simple adds its LL and LL128 builds once every Simple one is done).
using BuildProgress = std::function<void(std::size_t done, std::size_t total)>;

struct BuildCounts {
  std::size_t proven = 0;   // built and proven now (verdict recorded in the journal)
  std::size_t resumed = 0;  // verdict from the journal: rejected ones not rebuilt, accepted ones proven again
};

// The same sets as enumerate_candidates once per collective. A grid point whose verdict `journal`
// holds: a rejection is taken as recorded, an accepted point is built and proven again, and one the
// proof rejects is a forged entry (a DiagError at its line). With `share` (and a journal) each process
// of the job proves its share of the points and regenerates the others' accepted ones.
std::vector<CandidateSet> enumerate_candidates(const topo::Topology& topo, const std::vector<ir::Collective>& colls,
                                               const DeployTarget& target, const BuildProgress& progress,
                                               CheckpointJournal* journal, BuildCounts& counts,
                                               const WorkShare* share = nullptr);

}  // namespace ccforge::search
