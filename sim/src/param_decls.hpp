// The declaration of every "sim." model parameter: its profile name, unit, valid range, default and
// source, and the SimConstants field it binds to. Names live here and in the boundary that reads
// profiles and prints `--dump-params` (param_binding.cpp); the cost code reads the typed fields.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/sim/constants.hpp"

namespace ccforge::sim {

// What a value must satisfy to mean something to the model; nullopt when it does, else the rule.
using RangeCheck = std::optional<std::string_view> (*)(double value);

struct ParamDecl {
  std::string name;  // profile name, e.g. "sim.tb_bw.LL.sm90"
  std::string unit;  // printed by --dump-params and written into profiles
  RangeCheck range;
  double default_value = 0.0;
  std::string source;  // paper, datasheet, NCCL source file and symbol, or measurement
  std::function<double(const SimConstants&)> get;
  std::function<void(SimConstants&, double)> set;
};

// In the order --dump-params prints them.
const std::vector<ParamDecl>& sim_param_decls();
const ParamDecl* find_sim_param(std::string_view name);

}  // namespace ccforge::sim
