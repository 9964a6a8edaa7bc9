// Builds the one-line "FILE:LINE: problem (fix)" error field by field (GCC 12 misreports nested
// aggregate initialisation of Diag as a maybe-uninitialised read).
#pragma once

#include <string>

#include "ccforge/common/diag.hpp"

namespace ccforge::sim {

[[noreturn]] inline void fail(std::string file, int line, std::string problem, std::string fix) {
  Diag d;
  d.loc.file = std::move(file);
  d.loc.line = line;
  d.problem = std::move(problem);
  d.fix = std::move(fix);
  throw DiagError(std::move(d));
}

}  // namespace ccforge::sim
