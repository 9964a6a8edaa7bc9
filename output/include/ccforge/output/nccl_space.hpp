// NCCL's own space per size as JSON: report.json's "nccl_space" "sizes", and `ccforge sim --explain
// --json`'s "sizes". Per size every point with its simulated time and NCCL's model estimate, NCCL's
// choice (index 0), the fastest, the gain, whether the tuner overrides NCCL there.
#pragma once

#include <string>
#include <vector>

#include "ccforge/output/tune_report.hpp"

namespace ccforge::output {

std::string nccl_space_sizes_json_text(const std::vector<NcclSpaceSize>& sizes);

}  // namespace ccforge::output
