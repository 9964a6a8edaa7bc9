// DEPLOY.md and env.sh of a tune's output directory: the exact environment the target runtime needs to
// load and use the exported files, and what runs where (README's "Deploying" section says the same).
#pragma once

#include <string>
#include <vector>

#include "ccforge/output/tune_report.hpp"

namespace ccforge::output {

// `carried`: collectives kept from an earlier tune in the same directory (their files are listed by
// folder, not band by band).
std::string deploy_md(const TuneReport& report, const std::vector<std::string>& carried);
std::string env_sh(const TuneReport& report);

// DEPLOY.md's section on the stock-NCCL route (NCCL_TUNER_PLUGIN and the table's variable), Markdown.
std::string nccl_tuner_deploy_notes();

}  // namespace ccforge::output
