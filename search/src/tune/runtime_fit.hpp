// Building a candidate: generated, proven by ir::check, and fitted to the runtime that will load it
// (ir::check_loadable); the tune's candidates and the out-of-place variants of its winners both pass here.
#pragma once

#include <optional>
#include <string>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// nullopt when `target`'s runtime can load and run `algo`; else its first issue and how many more.
std::optional<std::string> runtime_misfit(const ir::Algorithm& algo, const DeployTarget& target);
// The algorithm, or why not: the generator's reason, (unfit) runtime_misfit's, or the checker's (only
// an algorithm the runtime can load is proven).
struct Proven {
  std::string name;  // the built algorithm's, else candidate_name()'s
  std::optional<ir::Algorithm> algorithm;
  std::string why_not;
  bool unfit = false;
};
Proven build_proven(const GeneratorInfo& gen, const GenRequest& req, const DeployTarget& target);
// How many of `set`'s rejections are runtime_misfit's.
std::size_t runtime_rejections(const CandidateSet& set);

}  // namespace ccforge::search
