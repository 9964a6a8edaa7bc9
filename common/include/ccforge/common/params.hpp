// One table holds every model constant with its unit and source. Presets are values of the table;
// a profile (written by `ccforge calibrate`) overrides entries by name, and an unknown name is an error.
#pragma once

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ccforge {

struct Param {
  std::string name;    // dotted, e.g. "link.nvlink.sm90.bw_per_link"
  double value = 0.0;
  std::string unit;    // "GB/s", "us", "ratio", ...
  std::string source;  // paper, datasheet, NCCL source file and symbol, or measurement
};

class ParamTable {
 public:
  ParamTable() = default;
  explicit ParamTable(std::vector<Param> params) : params_(std::move(params)) {}

  void add(Param p) { params_.push_back(std::move(p)); }

  const Param* find(std::string_view name) const {
    auto it = std::find_if(params_.begin(), params_.end(), [&](const Param& p) { return p.name == name; });
    return it == params_.end() ? nullptr : &*it;
  }

  // Value of a parameter the code itself registered: a missing one is a programming error.
  double get(std::string_view name) const {
    if (const Param* p = find(name)) return p->value;
    throw std::logic_error("unregistered model parameter " + std::string(name));
  }

  // Returns false when no parameter has that name, so the caller can report where it came from.
  bool set(std::string_view name, double value, std::string source) {
    auto it = std::find_if(params_.begin(), params_.end(), [&](const Param& p) { return p.name == name; });
    if (it == params_.end()) return false;
    it->value = value;
    it->source = std::move(source);
    return true;
  }

  const std::vector<Param>& all() const { return params_; }

 private:
  std::vector<Param> params_;
};

}  // namespace ccforge
