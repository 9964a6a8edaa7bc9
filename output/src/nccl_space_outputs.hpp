// The tune's outputs about NCCL's own space: nccl-tuner.conf (the table libnccl-tuner-ccforge.so
// reads), its selection.md section and its report.json member.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ccforge/output/tune_report.hpp"

namespace ccforge::output {

std::string nccl_tuner_conf(const TuneReport& report);
std::string nccl_space_markdown(const TuneReport& report);
nlohmann::json nccl_space_json(const CollectiveReport& collective);

}  // namespace ccforge::output
