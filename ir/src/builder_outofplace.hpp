// AlgorithmBuilder::build() with BuilderSpec::derive_outofplace: the recorded (logical, in-place) ops
// rewritten for an out-of-place call, in physical buffers (builder_outofplace.cpp says how).
#pragma once

#include <vector>

#include "builder_plan.hpp"

namespace ccforge::ir {

std::vector<PlannedOp> outofplace_ops(const BuilderSpec& spec, const std::vector<PlannedOp>& recorded);

}  // namespace ccforge::ir
