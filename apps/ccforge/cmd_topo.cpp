// `ccforge topo show|check FILE`: flags and printing only; the topology library computes everything.
#include "ccforge/topology/topology.hpp"
#include "ccforge/common/output_path.hpp"
#include "ccforge/sim/transports.hpp"
#include "commands.hpp"
#include "shared_flags.hpp"
#include "topo_input.hpp"
#include "topo_subcommands.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>

namespace ccforge::cli {
namespace {

namespace topo = ccforge::topo;

struct TopoFlags {
  TopoInput input;
  std::string profile;
  std::string write;
  std::string format;
  std::vector<std::string> diff;
};

void add_input_flags(CLI::App& cmd, TopoFlags& f) {
  cmd.add_option("file", f.input.file, "topology: " + kTopologyFileHelp)->default_str("$NCCL_TOPO_FILE");
  add_machine_flags(cmd, f.input);
  add_what_if_flags(cmd, f.input);
  add_profile_flag(cmd, f.profile, "only its link.* parameters apply");
}

topo::LoadOptions load_options(const TopoFlags& f) {
  topo::LoadOptions options;
  options.machine = machine_description(f.input);
  if (!f.profile.empty()) options.profile = topo::read_profile(f.profile);
  return options;
}

constexpr const char* kFileUsage = "a FILE argument";

std::string gbps(Bandwidth bw) { return gbps_text(bw); }

void print_matrix(const topo::TopologySummary& s, const char* title, auto cell) {
  fmt::print("{}\n      ", title);
  for (std::size_t j = 0; j < s.matrix.size(); ++j) fmt::print("{:>7}", j);
  fmt::print("\n");
  for (std::size_t i = 0; i < s.matrix.size(); ++i) {
    fmt::print("{:>6}", i);
    for (std::size_t j = 0; j < s.matrix.size(); ++j) fmt::print("{:>7}", i == j ? "-" : cell(s.matrix[i][j]));
    fmt::print("\n");
  }
}

void print_counts(const char* title, const std::vector<topo::CountByName>& counts) {
  fmt::print("{}:", title);
  for (const auto& c : counts) {
    if (c.count > 0) fmt::print(" {} x {}", c.count, c.name);
  }
  fmt::print("{}\n", counts.empty() ? " none" : "");
}

// The network between nodes: the cluster file's transport and the constants the simulator charges for it.
void print_transport(const topo::Topology& t) {
  const topo::NetTransport& n = t.transport();
  const sim::net::TransportConstants& c = sim::net::transport_constants(n.kind);
  fmt::print("transport: {} ({}), GPUDirect RDMA {}", topo::to_string(n.kind), c.plugin, n.gpudirect_rdma ? "on" : "off");
  if (n.nics_per_node > 0) fmt::print(", {} NICs per node ({} per NCCL device)", n.nics_per_node, n.nics_per_device());
  fmt::print("\n");
  const std::pair<const char*, const sim::net::Cited*> rows[] = {{"message cost beyond IB", &c.message_us},
                                                                 {"latency reported to NCCL", &c.reported_latency_us},
                                                                 {"framing share", &c.framing},
                                                                 {"streams per connection", &c.streams},
                                                                 {"rail stripe size", &c.stripe_min_bytes},
                                                                 {"Simple buffer (BUFFSIZE)", &c.simple_buffer_bytes},
                                                                 {"p2p step across nodes", &c.p2p_net_chunk_bytes}};
  for (const auto& [what, v] : rows) fmt::print("  {:<26} {:>8g} {:<7} {}\n", what, v->value, v->unit, v->source);
  for (const sim::net::PluginEnv& e : c.env) fmt::print("  plugin sets {:<24} {}\n", e.assignment, e.source);
}

nlohmann::json transport_json(const topo::Topology& t) {
  const topo::NetTransport& n = t.transport();
  const sim::net::TransportConstants& c = sim::net::transport_constants(n.kind);
  const auto cited = [](const sim::net::Cited& v) { return nlohmann::json{{"value", v.value}, {"unit", v.unit}, {"source", v.source}}; };
  nlohmann::json j{{"kind", topo::to_string(n.kind)}, {"plugin", c.plugin}, {"gpudirect_rdma", n.gpudirect_rdma},
                   {"message_us", cited(c.message_us)}, {"reported_latency_us", cited(c.reported_latency_us)},
                   {"framing", cited(c.framing)}, {"streams", cited(c.streams)},
                   {"stripe_min_bytes", cited(c.stripe_min_bytes)},
                   {"simple_buffer_bytes", cited(c.simple_buffer_bytes)},
                   {"p2p_net_chunk_bytes", cited(c.p2p_net_chunk_bytes)}};
  if (n.nics_per_node > 0) j["nics_per_node"] = n.nics_per_node;
  for (const sim::net::PluginEnv& e : c.env) j["plugin_env"].push_back({{"set", e.assignment}, {"source", e.source}});
  return j;
}

void print_text(const topo::TopologySummary& s) {
  fmt::print("{} ({}): {} GPUs = {} node(s) x {}{}\n", s.name, s.source_file, s.num_gpus, s.num_nodes, s.gpus_per_node,
             s.has_nvswitch ? ", NVSwitch" : "");
  print_counts("GPUs by model", s.gpus_by_model);
  print_counts("NICs by line rate", s.nics_by_speed);
  print_counts("vertices", s.vertices_by_kind);
  print_counts("directed links", s.links_by_kind);
  fmt::print("GPUs of node 0 (bandwidth per direction, GB/s):\n");
  fmt::print("  {:>4}  {:<16} {:<10} {:>4} {:>8} {:>7}  {:<16} {:>6}\n", "rank", "name", "model", "numa", "nvlink", "pcie", "nic", "nic");
  for (const auto& g : s.gpus) {
    fmt::print("  {:>4}  {:<16} {:<10} {:>4} {:>8} {:>7}  {:<16} {:>6}\n", g.rank, g.name, g.model, g.numa, gbps(g.nvlink_bandwidth),
               gbps(g.pcie_bandwidth), g.nearest_nic.empty() ? "-" : g.nearest_nic, gbps(g.nic_bandwidth));
  }
  if (!s.matrix.empty()) {
    print_matrix(s, "route bottleneck bandwidth (GB/s), row = source rank:", [](const topo::Route& r) { return gbps(r.bottleneck); });
    print_matrix(s, "route latency (us):", [](const topo::Route& r) { return fmt::format("{:.2f}", r.latency.us()); });
    print_matrix(s, "path class:", [](const topo::Route& r) { return std::string(topo::to_string(r.path_class)); });
  }
  fmt::print("routes from node 0's GPUs by kind of pair:\n");
  for (const auto& g : s.pair_groups) {
    fmt::print("  {:<30} {:>6} pairs  bottleneck {}-{} GB/s  latency {:.2f}-{:.2f} us  class {}-{}\n", g.group, g.pairs,
               gbps(g.min_bottleneck), gbps(g.max_bottleneck), g.min_latency.us(), g.max_latency.us(),
               topo::to_string(g.best_class), topo::to_string(g.worst_class));
  }
}

nlohmann::json to_json(const topo::TopologySummary& s) {
  nlohmann::json j{{"name", s.name}, {"file", s.source_file}, {"gpus", s.num_gpus}, {"nodes", s.num_nodes},
                   {"gpus_per_node", s.gpus_per_node}, {"nvswitch", s.has_nvswitch}};
  for (const auto& c : s.vertices_by_kind) j["vertices"][c.name] = c.count;
  for (const auto& c : s.links_by_kind) j["directed_links"][c.name] = c.count;
  for (const auto& c : s.gpus_by_model) j["gpus_by_model"][c.name] = c.count;
  j["nics_by_speed"] = nlohmann::json::object();
  for (const auto& c : s.nics_by_speed) j["nics_by_speed"][c.name] = c.count;
  for (const auto& g : s.gpus) {
    j["node0_gpus"].push_back({{"rank", g.rank}, {"name", g.name}, {"model", g.model}, {"numa", g.numa},
                               {"nvlink_gbps", g.nvlink_bandwidth.gbps()}, {"pcie_gbps", g.pcie_bandwidth.gbps()},
                               {"nic", g.nearest_nic}, {"nic_gbps", g.nic_bandwidth.gbps()}});
  }
  for (const auto& row : s.matrix) {
    nlohmann::json bw = nlohmann::json::array(), lat = nlohmann::json::array(), cls = nlohmann::json::array();
    for (const auto& r : row) {
      bw.push_back(std::isinf(r.bottleneck.bytes_per_s) ? nlohmann::json(nullptr) : nlohmann::json(r.bottleneck.gbps()));
      lat.push_back(r.latency.us());
      cls.push_back(topo::to_string(r.path_class));
    }
    j["matrix"]["bottleneck_gbps"].push_back(bw);
    j["matrix"]["latency_us"].push_back(lat);
    j["matrix"]["path_class"].push_back(cls);
  }
  for (const auto& g : s.pair_groups) {
    j["pair_groups"].push_back({{"group", g.group}, {"pairs", g.pairs}, {"min_bottleneck_gbps", g.min_bottleneck.gbps()},
                                {"max_bottleneck_gbps", g.max_bottleneck.gbps()}, {"min_latency_us", g.min_latency.us()},
                                {"max_latency_us", g.max_latency.us()}, {"best_class", topo::to_string(g.best_class)},
                                {"worst_class", topo::to_string(g.worst_class)}});
  }
  return j;
}

void run_check(const TopoFlags& f) {
  const topo::Topology t = load_topology(f.input, topology_file(f.input, kFileUsage), load_options(f));
  int nics = 0;
  for (const auto& v : t.vertices()) nics += v.kind == topo::VertexKind::Nic;
  fmt::print("ok: {}: {} GPUs in {} node(s), {} NICs{}, every GPU reaches GPU 0\n", t.source_file(), t.num_gpus(), t.num_nodes(), nics,
             t.has_nvswitch() ? ", NVSwitch" : "");
}

}  // namespace

void add_topo_command(CLI::App& app) {
  CLI::App* topo_cmd = app.add_subcommand("topo", "load, check and show cluster topologies");
  topo_cmd->require_subcommand(1);
  auto flags = std::make_shared<TopoFlags>();

  CLI::App* show = topo_cmd->add_subcommand("show", "show GPUs, NICs, switches, links and the GPU x GPU route matrix");
  add_input_flags(*show, *flags);
  add_format_flag(*show, flags->format, {"text", "json"});
  show->add_option("--write", flags->write,
                   "also save the topology, completed by --gpu-model etc., as a ccforge <node> file that loads without flags");
  show->add_option("--diff", flags->diff, "print topologies A and B side by side: GPU x GPU matrices and NIC placement")
      ->expected(2)->allow_extra_args(false);
  show->callback([flags] {
    if (!flags->diff.empty()) {
      if (!flags->write.empty() || flags->format != "text" || !flags->input.file.empty())
        fail_at("--diff", 0, "compares two files in text", "give --diff A B alone, without FILE, --write or --format");
      const topo::LoadOptions options = load_options(*flags);
      print_topology_diff(load_topology(flags->input, flags->diff[0], options), load_topology(flags->input, flags->diff[1], options));
      return;
    }
    const std::string file = topology_file(flags->input, kFileUsage);
    if (!flags->write.empty()) check_output_path(flags->write, OutputKind::File, "--write");
    if (!flags->write.empty() && (!flags->input.fail.empty() || !flags->input.degrade.empty()))
      fail_at("--write", 0, "saves the file's topology, not what-if changes", "drop --fail/--degrade, or --write");
    const topo::Topology t = load_topology(flags->input, file, load_options(*flags));
    const topo::TopologySummary s = topo::summarize(t);
    if (!flags->write.empty()) topo::write_completed_topology(file, machine_description(flags->input), flags->write);
    if (flags->format == "json") {
      nlohmann::json j = to_json(s);
      if (t.num_nodes() > 1) j["transport"] = transport_json(t);
      fmt::print("{}\n", j.dump(2));
    } else {
      print_text(s);
      if (t.num_nodes() > 1) print_transport(t);
    }
  });

  add_topo_import_command(*topo_cmd);

  CLI::App* check = topo_cmd->add_subcommand("check", "validate a topology; exit 0 with a one-line summary when fine");
  add_input_flags(*check, *flags);
  check->callback([flags] { run_check(*flags); });
}

}  // namespace ccforge::cli
