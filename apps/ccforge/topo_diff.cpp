// `topo show --diff A B`: what topo show prints of each, side by side, and what differs.
#include "ccforge/topology/import.hpp"
#include "topo_subcommands.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace ccforge::cli {
namespace {

namespace topo = ccforge::topo;
using CellText = std::function<std::string(const topo::Route&)>;

std::string cell(const topo::TopologySummary& s, std::size_t i, std::size_t j, const CellText& text) {
  if (i >= s.matrix.size() || j >= s.matrix.size()) return "";
  return i == j ? "-" : text(s.matrix[i][j]);
}

// Both matrices row by row, "A | B"; returns how many cells differ.
int print_matrices(const topo::TopologySummary& a, const topo::TopologySummary& b, const char* title, const CellText& text) {
  const std::size_t n = std::max(a.matrix.size(), b.matrix.size());
  fmt::print("{} (A | B, * where they differ):\n      ", title);
  for (std::size_t j = 0; j < a.matrix.size(); ++j) fmt::print("{:>7}", j);
  fmt::print("  |");
  for (std::size_t j = 0; j < b.matrix.size(); ++j) fmt::print("{:>7}", j);
  fmt::print("\n");
  int differ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::string left, right;
    bool row_differs = false;
    for (std::size_t j = 0; j < n; ++j) {
      const std::string x = cell(a, i, j, text), y = cell(b, i, j, text);
      if (x != y) ++differ, row_differs = true;
      if (j < a.matrix.size()) left += fmt::format("{:>7}", x);
      if (j < b.matrix.size()) right += fmt::format("{:>7}", y);
    }
    fmt::print("{:>6}{:<{}}  |{}{}\n", i, left, 7 * a.matrix.size(), right, row_differs ? "  *" : "");
  }
  return differ;
}

std::string ranks(const std::vector<int>& r) {
  std::string out;
  for (int x : r) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

std::string placement_text(const std::vector<topo::NicPlacement>& p, std::size_t i) {
  if (i >= p.size()) return "";
  return fmt::format("{:<10} {:<8} {:<16} {:<16}", p[i].nic.empty() ? "-" : p[i].nic, p[i].locality, ranks(p[i].nic_sharers), ranks(p[i].numa_peers));
}

// A kind of pair's route range as printed, "" when the topology has no such pairs.
std::string pair_group_text(const topo::TopologySummary& s, const std::string& group) {
  for (const auto& g : s.pair_groups) {
    if (g.group != group) continue;
    return fmt::format("{}-{} GB/s, {:.2f}-{:.2f} us, {}-{}", gbps_text(g.min_bottleneck), gbps_text(g.max_bottleneck), g.min_latency.us(),
                       g.max_latency.us(), topo::to_string(g.best_class), topo::to_string(g.worst_class));
  }
  return "";
}

std::string counts(const std::vector<topo::CountByName>& c) {
  std::string out;
  for (const auto& x : c) out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", x.count, x.name);
  return out.empty() ? "none" : out;
}

}  // namespace

std::string gbps_text(Bandwidth bw) { return std::isinf(bw.bytes_per_s) ? "-" : fmt::format("{:.1f}", bw.gbps()); }

void print_topology_diff(const topo::Topology& ta, const topo::Topology& tb) {
  const topo::TopologySummary a = topo::summarize(ta), b = topo::summarize(tb);
  fmt::print("A: {} ({}): {} GPUs = {} node(s) x {}\n", a.name, a.source_file, a.num_gpus, a.num_nodes, a.gpus_per_node);
  fmt::print("B: {} ({}): {} GPUs = {} node(s) x {}\n", b.name, b.source_file, b.num_gpus, b.num_nodes, b.gpus_per_node);
  fmt::print("GPUs by model:     A {} | B {}\n", counts(a.gpus_by_model), counts(b.gpus_by_model));
  fmt::print("NICs by line rate: A {} | B {}\n", counts(a.nics_by_speed), counts(b.nics_by_speed));
  std::vector<std::string> differences;
  if (a.num_gpus != b.num_gpus) differences.push_back(fmt::format("GPU count ({} vs {})", a.num_gpus, b.num_gpus));
  if (!a.matrix.empty() && !b.matrix.empty()) {
    const int bw = print_matrices(a, b, "route bottleneck bandwidth (GB/s), row = source rank",
                                  [](const topo::Route& r) { return gbps_text(r.bottleneck); });
    const int lat = print_matrices(a, b, "route latency (us)", [](const topo::Route& r) { return fmt::format("{:.2f}", r.latency.us()); });
    if (bw > 0) differences.push_back(fmt::format("bandwidth of {} GPU pairs", bw));
    if (lat > 0) differences.push_back(fmt::format("latency of {} GPU pairs", lat));
  } else {
    // Over 16 GPUs topo show summarises routes by kind of pair; so does the comparison.
    fmt::print("routes from node 0's GPUs by kind of pair (A | B):\n");
    std::vector<std::string> groups;
    for (const auto* s : {&a, &b}) {
      for (const auto& g : s->pair_groups) {
        if (std::find(groups.begin(), groups.end(), g.group) == groups.end()) groups.push_back(g.group);
      }
    }
    for (const std::string& name : groups) {
      const std::string x = pair_group_text(a, name), y = pair_group_text(b, name);
      fmt::print("  {:<30} {:<44}|  {}{}\n", name, x, y, x == y ? "" : "  *");
      if (x != y) differences.push_back("routes of kind " + name);
    }
  }
  const std::vector<topo::NicPlacement> pa = topo::nic_placement(ta), pb = topo::nic_placement(tb);
  fmt::print("NIC placement of node 0's GPUs (nic, locality: switch/cpu/remote, GPUs sharing the NIC, GPUs on the NUMA node), A | B:\n");
  std::vector<int> moved;
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    const bool same = i < pa.size() && i < pb.size() && pa[i] == pb[i];
    if (!same) moved.push_back(static_cast<int>(i));
    fmt::print("{:>6}  {:<52}|  {}{}\n", i, placement_text(pa, i), placement_text(pb, i), same ? "" : "  *");
  }
  if (!moved.empty()) differences.push_back("NIC placement of GPUs " + ranks(moved));
  // Line rates are not placement: said apart, so that a machine wired alike but with slower NICs reads so.
  const std::string rates = counts(a.nics_by_speed) == counts(b.nics_by_speed)
                                ? ""
                                : fmt::format("; NIC line rates differ ({} | {})", counts(a.nics_by_speed), counts(b.nics_by_speed));
  if (differences.empty()) {
    fmt::print("# same {}, same NIC placement{}\n",
               a.matrix.empty() || b.matrix.empty() ? "routes by kind of pair" : "GPU x GPU bandwidth and latency", rates);
  } else {
    std::string list;
    for (const std::string& d : differences) list.append(list.empty() ? "" : "; ").append(d);
    fmt::print("# differ in: {}{}\n", list, rates);
  }
}

}  // namespace ccforge::cli
