#include "topo_input.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/core.h>

#include "ccforge/common/diag.hpp"

namespace ccforge::cli {

void add_machine_flags(CLI::App& cmd, TopoInput& input) {
  cmd.add_option("--gpu-model", input.gpu_model, "complete a partial (PCI-only) file: GPU model, e.g. \"H100 SXM\"");
  cmd.add_option("--fabric", input.fabric, "with --gpu-model: nvswitch (default) or none");
  cmd.add_option("--nvlinks-per-gpu", input.nvlinks_per_gpu, "with --gpu-model: NVLinks per GPU (default: the model's)");
  cmd.add_option("--nic-gbps", input.nic_gbps, "with --gpu-model: NIC speed in Gb/s, e.g. 400")
      ->check(finite_range(0, topo::kMaxNicGbps, true));
}

void add_what_if_flags(CLI::App& cmd, TopoInput& input) {
  // One value per flag: a flag taking several would swallow a positional FILE that follows it.
  cmd.add_option("--fail", input.fail, "what-if: take nic:NODE/NAME or link:A-B out of service, names as topo show prints them (repeatable)")
      ->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--degrade", input.degrade, "what-if: run link:A-B at FRACTION (0.001 <= FRACTION <= 1) of its bandwidth (repeatable)")
      ->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

topo::Topology load_topology(const TopoInput& input, const std::string& file, const topo::LoadOptions& options) {
  std::vector<topo::TopologyChange> changes;
  for (const std::string& text : input.fail) changes.push_back(topo::parse_failure(text));
  for (const std::string& text : input.degrade) changes.push_back(topo::parse_degradation(text));
  const topo::Topology topology = topo::load_topology(file, options);
  return changes.empty() ? topology : topology.with_changes(changes);
}

std::string topology_file(const TopoInput& input, const std::string& usage) {
  if (!input.file.empty()) return input.file;
  if (const char* env = std::getenv("NCCL_TOPO_FILE"); env != nullptr && *env != '\0') return env;
  fail_at("ccforge", 0, "no topology given", "pass " + usage + " or set NCCL_TOPO_FILE");
}

std::optional<topo::MachineDescription> machine_description(const TopoInput& input) {
  if (!input.gpu_model.empty()) {
    return topo::MachineDescription{input.gpu_model, input.fabric.value_or("nvswitch"), input.nvlinks_per_gpu, input.nic_gbps};
  }
  if (input.fabric || input.nvlinks_per_gpu || input.nic_gbps) {
    throw CLI::ValidationError("--fabric/--nvlinks-per-gpu/--nic-gbps", "describe a machine only together with --gpu-model");
  }
  return std::nullopt;
}

CLI::Validator finite_range(double min, double max, bool min_exclusive) {
  const std::string range = fmt::format("{} {:g} and <= {:g}", min_exclusive ? ">" : ">=", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool parsed = !text.empty() && end == text.c_str() + text.size() && errno == 0;
        const bool inside = std::isfinite(value) && (min_exclusive ? value > min : value >= min) && value <= max;
        if (parsed && inside) return {};
        return fmt::format("{} is {}; allowed: {}", text, parsed && std::isfinite(value) ? "out of range" : "not a finite number", range);
      },
      "NUMBER " + range);
}

}  // namespace ccforge::cli
