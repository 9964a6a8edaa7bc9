// A tune's simulations, size after size in waves (SizeWaves), with what each collective learns from a
// finished size raised into its floors. A process alone runs every collective on its own: a collective
// moves to its next wave, and its next size, as soon as its own last wave finished, so no core waits
// for another collective's longest simulation. Processes sharing a job (TuneOptions::share) run all
// collectives in lockstep, since every wave is dealt and joined across them. The waves are the same
// either way (SizeWaves decides each collective's from its own finished results only).
#pragma once

#include <cstddef>

#include "ccforge/search/search.hpp"
#include "tune/runner.hpp"
#include "tune/waves.hpp"

namespace ccforge::search {

struct SimulationCounts {
  std::size_t simulations = 0;
  PruneCounts pruned;
};

SimulationCounts run_sizes(const TuneResult& r, Floors& floors, const TuneOptions& options, Runner& runner);

}  // namespace ccforge::search
