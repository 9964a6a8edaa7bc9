#include "check_issues.hpp"

#include <fmt/core.h>

namespace ccforge::cli {

std::string issue_location(const std::string& file, const ir::CheckIssue& issue) {
  const std::string loc = issue.line > 0 ? fmt::format("{}:{}", file, issue.line) : file;
  std::string step;
  if (issue.rank >= 0) step += fmt::format(" rank {}", issue.rank);
  if (issue.tb >= 0) step += fmt::format(" tb {}", issue.tb);
  if (issue.step >= 0) step += fmt::format(" step {}", issue.step);
  return fmt::format("{}: [{}]{}{}", loc, issue.rule, step, step.empty() ? "" : ":");
}

}  // namespace ccforge::cli
