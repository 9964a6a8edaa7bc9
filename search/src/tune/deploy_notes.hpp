// DEPLOY.md and env.sh of a tune's output directory: the exact environment the target runtime needs to
// load and use the exported files, and what runs where (README's "Deploying" section says the same).
#pragma once

#include <string>
#include <vector>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// `carried`: collectives kept from an earlier tune in the same directory (their files are listed by
// folder, not band by band).
std::string deploy_md(const TuneResult& result, const TuneOptions& options, const std::vector<std::string>& carried);
std::string env_sh(const TuneResult& result);

}  // namespace ccforge::search
