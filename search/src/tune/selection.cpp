// Winner per size and band merging (algorithms.md §11.3): the lower envelope of all candidates,
// NCCL kept unless beaten by at least min_gain beyond the winner's expected error, adjacent equal
// winners merged into disjoint bands.
#include "ccforge/search/search.hpp"

namespace ccforge::search {

bool beats_nccl(SimTime time, SimTime nccl, double min_gain) {
  return static_cast<double>(nccl.ps) >= (1.0 + min_gain) * static_cast<double>(time.ps);
}

double required_gain(double min_gain, double error_pct) { return (1.0 + min_gain) * (1.0 + error_pct / 100.0) - 1.0; }

std::vector<Choice> choose(const std::vector<SizeResult>& sizes, double min_gain, const ErrorOf& error_of) {
  std::vector<Choice> choices;
  for (const SizeResult& s : sizes) {
    Choice c{s.bytes, s.nccl, s.nccl, -1, s.lower_bound, -1, {}};
    std::optional<SimTime> fastest;
    int fastest_index = -1;
    for (std::size_t i = 0; i < s.times.size(); ++i) {
      if (s.times[i] && (!fastest || *s.times[i] < *fastest)) {  // strict: ties keep the lower index
        fastest = s.times[i];
        fastest_index = static_cast<int>(i);
      }
    }
    if (fastest) {
      c.fastest = fastest_index;
      if (error_of) c.error = error_of(fastest_index, s.bytes);
    }
    if (fastest && beats_nccl(*fastest, s.nccl, required_gain(min_gain, c.error.pct))) {
      c.best = *fastest;
      c.winner = fastest_index;
    }
    choices.push_back(c);
  }
  return choices;
}

std::vector<Band> merge_bands(const std::vector<Choice>& choices) {
  std::vector<Band> bands;
  for (const Choice& c : choices) {
    if (!bands.empty() && bands.back().winner == c.winner) {
      bands.back().max_bytes = c.bytes;
      continue;
    }
    if (!bands.empty()) bands.back().max_bytes = c.bytes - 1;
    Band band;
    band.min_bytes = band.max_bytes = c.bytes;
    band.winner = c.winner;
    bands.push_back(std::move(band));
  }
  return bands;
}

}  // namespace ccforge::search
