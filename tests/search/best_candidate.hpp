// The fastest simulated candidate of one generator (optionally one protocol) at one size, for the
// synthesis tests that compare packed trees with rings.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::search {

inline std::optional<SimTime> best_of(const topo::Topology& t, const CandidateSet& set, std::string_view generator,
                                      ByteCount bytes, std::string& name,
                                      std::optional<ir::Protocol> protocol = std::nullopt) {
  std::optional<SimTime> best;
  const sim::SimParams params;
  const sim::CallSpec call{bytes, DataType::Half};
  for (const Candidate& c : set.accepted) {
    if (c.generator != generator || (protocol && c.request.protocol != *protocol)) continue;
    try {
      const SimTime time = sim::simulate(t, c.algorithm, call, params).time;
      if (!best || time < *best) {
        best = time;
        name = c.name;
      }
    } catch (const DiagError&) {
      // the size does not split into this candidate's chunks (e.g. 6 rings x 8 segments)
    }
  }
  return best;
}

}  // namespace ccforge::search
