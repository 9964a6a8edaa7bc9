// The tune's outputs about NCCL's own space: nccl-tuner.conf (the table libnccl-tuner-ccforge.so
// reads), its selection.md section and its report.json member.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

std::string nccl_tuner_conf(const TuneResult& result, double min_gain);
std::string nccl_space_markdown(const TuneResult& result, double min_gain);
nlohmann::json explanations_json(const std::vector<sim::NcclExplanation>& explanations, double min_gain);
nlohmann::json nccl_space_json(const NcclSpaceTune& space, double min_gain);

}  // namespace ccforge::search
