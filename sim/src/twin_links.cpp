#include "twin_links.hpp"

#include <algorithm>
#include <map>

namespace ccforge::sim {

// Why a twin b of capacity C_b >= (1 + kTwinMargin) C_a, a the least, can be left out of max-min:
// twins see the same flows added and removed in the same order, so their flow lists, summed caps and
// loads are equal and b binds only when a does. The residual capacity a re-solve gives b exceeds a's
// by about C_b - C_a (the outside flows' sum is rounded n x 2^-53 of the capacity, far below the
// margin); progressive filling (maxmin.cpp) subtracts the same amounts from both, each rounding at
// most 2^-53 of the remainder, so b's remainder stays above a's by more than the saturation slack
// (1e-12 of its capacity) for fewer than 10^6 rounds: b never sets the next level and never saturates
// where a does not, and the load a allows never reaches b's capacity (b certifies no flow). Twins of
// equal capacity are the same constraint bit for bit.
std::vector<std::uint32_t> twin_standing_for(const std::vector<std::vector<std::uint32_t>>& paths,
                                             const std::vector<double>& capacity) {
  // Per link, (path, times it crosses it) over every path that does: twins have equal lists.
  std::vector<std::vector<std::uint64_t>> crossings(capacity.size());
  std::vector<std::uint32_t> sorted;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    sorted = paths[p];
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size();) {
      std::size_t end = k;
      while (end < sorted.size() && sorted[end] == sorted[k]) ++end;
      crossings[sorted[k]].push_back(static_cast<std::uint64_t>(p) << 32 | (end - k));
      k = end;
    }
  }
  std::map<std::vector<std::uint64_t>, std::vector<std::uint32_t>> classes;
  for (std::uint32_t l = 0; l < capacity.size(); ++l)
    if (!crossings[l].empty()) classes[std::move(crossings[l])].push_back(l);
  std::vector<std::uint32_t> twin(capacity.size());
  for (std::uint32_t l = 0; l < capacity.size(); ++l) twin[l] = l;
  for (const auto& entry : classes) {
    const std::vector<std::uint32_t>& links = entry.second;
    const std::uint32_t least = *std::min_element(links.begin(), links.end(), [&](std::uint32_t a, std::uint32_t b) {
      return capacity[a] < capacity[b];
    });
    for (std::uint32_t l : links)
      if (capacity[l] == capacity[least] || capacity[l] >= capacity[least] * (1.0 + kTwinMargin)) twin[l] = least;
  }
  return twin;
}

}  // namespace ccforge::sim
