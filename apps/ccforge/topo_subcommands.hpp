// `topo import` and `topo show --diff`, registered by cmd_topo.cpp.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "ccforge/topology/topology.hpp"

namespace ccforge::cli {

void add_topo_import_command(CLI::App& topo_cmd);

// The two topologies' GPU x GPU matrices and NIC placement side by side, then one line saying whether
// they differ (as printed: 0.1 GB/s, 0.01 us).
void print_topology_diff(const topo::Topology& a, const topo::Topology& b);

// A bandwidth as topo show prints it: GB/s to 0.1, "-" for a GPU's route to itself.
std::string gbps_text(Bandwidth bw);

}  // namespace ccforge::cli
