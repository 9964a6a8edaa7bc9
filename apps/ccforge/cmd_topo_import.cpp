// `ccforge topo import FILE --out OUT`: flags and printing; topology/src/import does the reading.
#include "ccforge/common/output_path.hpp"
#include "ccforge/topology/import.hpp"
#include "shared_flags.hpp"
#include "topo_input.hpp"
#include "topo_subcommands.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

namespace ccforge::cli {
namespace {

namespace topo = ccforge::topo;

struct ImportFlags {
  TopoInput machine;  // --gpu-model, --fabric, --nvlinks-per-gpu, --nic-gbps
  std::string gpu_query, nic_query, name, out;
  int nodes = 1;
  std::string transport;
};

void run_import(const ImportFlags& f) {
  check_output_path(f.out, OutputKind::File, "--out");
  topo::ImportInputs in;
  in.input = f.machine.file;
  if (!f.gpu_query.empty()) in.gpu_query = f.gpu_query;
  if (!f.nic_query.empty()) in.nic_query = f.nic_query;
  in.gpu_model = f.machine.gpu_model;
  in.nic_gbps = f.machine.nic_gbps;
  in.fabric = f.machine.fabric;
  in.nvlinks_per_gpu = f.machine.nvlinks_per_gpu;
  in.name = f.name;
  topo::ImportedNode node = topo::import_node(in);

  const std::filesystem::path out(f.out);
  std::filesystem::path node_path = out;
  if (f.nodes > 1) {
    if (node.nic_gbps <= 0) {
      fail_at("--nodes", 0, fmt::format("{} nodes need NICs, and the imported node has none", f.nodes),
              "import a dump or matrix that lists the NICs, or give rocm-smi input --nic-gbps");
    }
    node_path = out.parent_path() / (out.stem().string() + "-node.xml");
    check_output_path(node_path, OutputKind::File, "--out");
    if (f.transport.empty()) node.notes.push_back({true, "transport ib between nodes (--transport names another)"});
  }
  write_file_atomically(node_path, node.node_xml);
  if (f.nodes > 1) {
    const topo::ClusterPlan plan{node.name + "-x" + std::to_string(f.nodes), node_path.filename().string(), f.nodes,
                                 f.transport.empty() ? "ib" : f.transport, node.nic_gbps};
    write_file_atomically(out, topo::cluster_file_text(plan));
  }
  // The written file must load as any topology does; its problems are named at its own lines.
  const topo::Topology t = topo::load_topology(out);
  for (const topo::ImportNote& note : node.notes) fmt::print(stderr, "{}\n", note.str());
  int nics = 0;
  for (const auto& v : t.vertices()) nics += v.kind == topo::VertexKind::Nic;
  fmt::print("wrote {}{}: {} GPUs in {} node(s), {} NICs{}\n", out.string(), f.nodes > 1 ? " and " + node_path.string() : "", t.num_gpus(),
             t.num_nodes(), nics, t.has_nvswitch() ? ", NVSwitch" : "");
  fmt::print("next: ccforge topo show {} (add --diff with a bundled machine to compare), then ccforge tune --topo {}\n", out.string(), out.string());
}

}  // namespace

void add_topo_import_command(CLI::App& topo_cmd) {
  auto f = std::make_shared<ImportFlags>();
  CLI::App* cmd = topo_cmd.add_subcommand(
      "import", "write a topology from what one node reports: NCCL's topology dump, nvidia-smi topo -m or rocm-smi --showtopo");
  cmd->add_option("file", f->machine.file,
                  "NCCL_TOPO_DUMP_FILE's file, or the text printed by `nvidia-smi topo -m` or `rocm-smi --showtopo`")
      ->required();
  add_machine_flags(*cmd, f->machine);
  // The shared descriptions speak of partial files; what the flags do here goes in this verb's note.
  for (const auto& [flag, note] : {std::pair<const char*, const char*>{"--gpu-model", "the GPUs of a topo -m or rocm-smi input; checked against a dump's"},
                                   {"--nic-gbps", "also without --gpu-model: the rate of NICs the input gives none for"}}) {
    CLI::Option* opt = cmd->get_option(flag);
    opt->description(opt->get_description() + verb_note(*cmd, note));
  }
  cmd->add_option("--gpu-query", f->gpu_query, "`nvidia-smi -q` output of the same node: GPU model and bus ids");
  cmd->add_option("--nic-query", f->nic_query, "`ibv_devinfo -v` or `ibstat` output of the same node: NIC port rates");
  cmd->add_option("--nodes", f->nodes, "nodes like this one; above 1 also writes a <cluster> file")->check(CLI::Range(1, 4096))->capture_default_str();
  std::string transports;
  for (const std::string& t : topo::cluster_transports()) transports += (transports.empty() ? "" : ", ") + t;
  cmd->add_option("--transport", f->transport, "how the nodes talk with --nodes: " + transports + " (default ib)")
      ->check(CLI::IsMember(topo::cluster_transports()));
  cmd->add_option("--name", f->name, "the node's name (default: the input's file name)");
  add_out_flag(*cmd, f->out, "the <node> file, or with --nodes the <cluster> file and OUT-node.xml beside it")->required();
  cmd->callback([f] { run_import(*f); });
}

}  // namespace ccforge::cli
