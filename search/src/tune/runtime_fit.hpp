// Whether a proven algorithm fits the runtime that will load it (ir::check_loadable), as one line.
#pragma once

#include <optional>
#include <string>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// nullopt when `target`'s runtime can load and run `algo`; else its first issue and how many more.
std::optional<std::string> runtime_misfit(const ir::Algorithm& algo, const DeployTarget& target);
// How many of `set`'s rejections are runtime_misfit's.
std::size_t runtime_rejections(const CandidateSet& set);

}  // namespace ccforge::search
