// The measured error table (measured_error_cells.inc, generated; its header says how) and the lookup a
// tune's selection asks.
#include <algorithm>

#include <fmt/core.h>

#include "ccforge/search/expected_error.hpp"

namespace ccforge::search {

const std::vector<MeasuredError>& measured_errors() {
  static const std::vector<MeasuredError> cells{
#include "tune/measured_error_cells.inc"
  };
  return cells;
}

namespace {

double worst_measured_pct() {
  double worst = 0.0;
  for (const MeasuredError& c : measured_errors()) worst = std::max(worst, c.worst_pct);
  return worst;
}

}  // namespace

ExpectedError expected_error(std::string_view topology, ir::Collective collective, std::string_view family,
                             ir::Protocol protocol, ByteCount bytes) {
  const std::string unmeasured = fmt::format("unmeasured: worst measured cell's {:.1f} %", worst_measured_pct());
  if (topology != kMeasuredTopology)
    return {worst_measured_pct(), false, fmt::format("{} (measured on {} only)", unmeasured, kMeasuredTopology)};
  for (const MeasuredError& c : measured_errors())
    if (c.collective == collective && c.family == family && c.protocol == protocol && bytes >= c.sizes.lo && bytes <= c.sizes.hi)
      return {c.worst_pct, true,
              fmt::format("{} at {}..{} ({} published rows)", c.source, format_size(c.min_measured),
                          format_size(c.max_measured), c.points)};
  return {worst_measured_pct(), false, unmeasured};
}

}  // namespace ccforge::search
