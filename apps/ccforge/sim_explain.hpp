// `ccforge sim --algo nccl --explain`: printing of sim::explain_nccl per size ("why this algorithm").
#pragma once

#include <string>
#include <vector>

#include "ccforge/common/run_metadata.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::cli {

// Table (format "table") or JSON ("json": `metadata`'s members, as `sim --format json` carries them, and
// "sizes", the same member report.json's nccl_space.sizes holds).
void print_explanations(const std::vector<sim::NcclExplanation>& explanations, const std::string& format,
                        const std::string& header, double min_gain, const RunMetadata& metadata);

}  // namespace ccforge::cli
