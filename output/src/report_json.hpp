// report.json: everything a tune tried, simulated and chose, per collective, with its timing.
#pragma once

#include <string>

#include "ccforge/output/tune_report.hpp"
#include "output_dir.hpp"

namespace ccforge::output {

// The collectives `carried` kept from an earlier tune follow this tune's, as that tune wrote them.
std::string report_json(const TuneReport& report, const CarryOver& carried);

}  // namespace ccforge::output
