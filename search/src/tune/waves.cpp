#include "tune/waves.hpp"

#include <mutex>

#include <fmt/core.h>
#include <tbb/parallel_for.h>

#include "tune/phase_progress.hpp"
#include "tune/work_division.hpp"

namespace ccforge::search {

namespace {

std::string floor_key(const TuneResult& r, std::size_t c, std::size_t i) {
  return fmt::format("floors/{}/{}", ir::to_string(r.collectives[c].collective), r.collectives[c].candidates.accepted[i].name);
}

// A resumed floor above a resumed time of the same candidate and size is no floor: using it would prune
// the candidate wrongly where it might win.
void check_resumed_floors(const Runner& runner, const CheckpointJournal& journal, const std::string& key,
                          const std::vector<SimTime>& floors, std::size_t c, std::size_t i) {
  for (std::size_t s = 0; s < floors.size(); ++s) {
    const Sample* smp = runner.sample({c, static_cast<int>(i), s});
    if (smp && smp->time && floors[s] > *smp->time)
      throw journal.forged(key, fmt::format("floor {:.6f} us is above the journaled time {:.6f} us at size {}", floors[s].us(),
                                            smp->time->us(), s + 1));
  }
}

}  // namespace

void compute_model_floors(Floors& floors, const Runner& runner, const TuneOptions& options, TuneResult& result,
                          CheckpointJournal& journal) {
  std::vector<std::pair<std::size_t, std::size_t>> items;  // (collective, candidate)
  for (std::size_t c = 0; c < floors.model.size(); ++c)
    for (std::size_t i = 0; i < floors.model[c].size(); ++i) items.emplace_back(c, i);
  WorkDivision division(options.share);
  const WorkDivision::Deal deal = division.deal(items.size());
  std::vector<std::size_t> todo;
  for (std::size_t k : deal.mine) {
    const auto [c, i] = items[k];
    const auto known = journal.floors().find(floor_key(result, c, i));
    if (known == journal.floors().end()) {
      todo.push_back(k);
    } else {
      check_resumed_floors(runner, journal, known->first, known->second, c, i);
      floors.model[c][i] = known->second;
      ++result.floors_resumed;
    }
  }
  PhaseProgress progress(options, kPhaseFloors, todo.size());
  std::mutex journal_mutex;
  tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t t) {
    const auto [c, i] = items[todo[t]];
    try {
      floors.model[c][i] = runner.time_floors(c, i);
    } catch (const DiagError&) {
      // No model floor (recorded empty): its simulations fail the same way, and reject_refused reports that.
    }
    {
      const std::lock_guard<std::mutex> lock(journal_mutex);
      journal.record(floor_key(result, c, i), floors.model[c][i]);
    }
    progress.advance();
  });
  const auto line_of = [&](std::size_t k) {
    const auto [c, i] = items[k];
    return CheckpointJournal::line(floor_key(result, c, i), floors.model[c][i]);
  };
  division.join(deal.mine, line_of, journal);
  for (std::size_t k : deal.theirs) {
    const auto [c, i] = items[k];
    floors.model[c][i] = journal.floors().at(floor_key(result, c, i));
  }
  // A resumed time below its candidate's floor (sim::time_floors bounds every simulation of it) was not
  // simulated: refused before it can win.
  for (const auto& [c, i] : items)
    for (std::size_t s = 0; s < floors.model[c][i].size(); ++s) {
      const Job job{c, static_cast<int>(i), s};
      const Sample* smp = runner.sample(job);
      if (smp && smp->time && *smp->time < floors.model[c][i][s])
        throw journal.forged(runner.key(job), fmt::format("{:.6f} us is below the candidate's time floor of {:.6f} us",
                                                          smp->time->us(), floors.model[c][i][s].us()));
    }
}

}  // namespace ccforge::search
