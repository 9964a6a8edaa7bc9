// How the CLI reports what the checker proves wrong: `FILE:LINE: [rule] rank R tb T step S:` before the
// message, and exit code 1 (a check found the input wrong), shared by `ir check` and `sim`.
#pragma once

#include <string>

#include "ccforge/ir/ir.hpp"

namespace ccforge::cli {

inline constexpr int kExitCheckFailed = 1;

std::string issue_location(const std::string& file, const ir::CheckIssue& issue);

}  // namespace ccforge::cli
