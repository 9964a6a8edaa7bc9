// The topology flags shared by every verb that reads a topology: the file (or NCCL_TOPO_FILE, as NCCL
// reads it, when the flag is absent) and the machine description that completes Azure's partial files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ccforge/topology/topology.hpp"

namespace ccforge::cli {

struct TopoInput {
  std::string file;
  std::string gpu_model;
  std::optional<std::string> fabric;
  std::optional<int> nvlinks_per_gpu;
  std::optional<double> nic_gbps;
  std::vector<std::string> fail, degrade;  // what-if changes, as typed
};

// --gpu-model, --fabric, --nvlinks-per-gpu and --nic-gbps.
void add_machine_flags(CLI::App& cmd, TopoInput& input);

// --fail nic:NODE/NAME|link:A-B and --degrade link:A-B=FRACTION, each repeatable (`topo`, `sim`, `tune`).
void add_what_if_flags(CLI::App& cmd, TopoInput& input);

// The topology file: `input.file`, else $NCCL_TOPO_FILE; when neither is set, a DiagError whose fix
// shows `usage` (e.g. "--topo FILE").
std::string topology_file(const TopoInput& input, const std::string& usage);

// LoadOptions.machine from the flags; machine flags without --gpu-model are an error.
std::optional<topo::MachineDescription> machine_description(const TopoInput& input);

// Loads `file` and applies the what-if flags, checked before the file is read.
topo::Topology load_topology(const TopoInput& input, const std::string& file, const topo::LoadOptions& options);

// A CLI11 check for a number in [min, max] ((min, max] when min_exclusive). CLI11's Range lets NaN
// through, since every comparison with NaN is false; this one rejects NaN and infinities and echoes
// the value and the range.
CLI::Validator finite_range(double min, double max, bool min_exclusive = false);

}  // namespace ccforge::cli
