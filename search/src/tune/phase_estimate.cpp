#include "ccforge/search/search.hpp"

namespace ccforge::search {

std::optional<double> phase_seconds_left(const TuneProgress& progress, double worked_s) {
  const std::size_t worked = progress.done - progress.skipped;
  if (progress.total == 0) return std::nullopt;
  if (progress.done >= progress.total) return 0.0;
  if (worked == 0) return std::nullopt;
  return worked_s / static_cast<double>(worked) * static_cast<double>(progress.total - progress.done);
}

}  // namespace ccforge::search
