// Public interface of the topology part: a cluster as a graph of typed vertices and directed links,
// loaded from NCCL topology XML (full dump or Azure's partial PCI-only form completed from a machine
// description) or from a ccforge cluster file, with GPU-to-GPU routes computed by Boost.Graph.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/ids.hpp"
#include "ccforge/common/params.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/topology/gpu_models.hpp"
#include "ccforge/topology/link_constants.hpp"
#include "ccforge/topology/transport.hpp"

namespace ccforge::topo {

enum class VertexKind { Gpu, NvSwitch, PciSwitch, Cpu, Nic, NetSwitch };
enum class LinkKind { NvLink, NvSwitch, Xgmi, Pcie, CpuInterconnect, Nic, Network };

// NCCL's path classes (src/include/graph.h), ordered best to worst and combined by max along a path.
enum class PathClass { Loc, Nvl, Nvb, C2c, Pix, Pxb, P2c, Pxn, Phb, Sys, Net, Dis };

const char* to_string(VertexKind kind);
const char* to_string(LinkKind kind);
const char* to_string(PathClass cls);
const char* to_string(GpuArch arch);
// The per-architecture key inside model parameter names: "sm70", "sm80", "sm90", "sm100", "cdna3".
const char* param_key(GpuArch arch);

struct Vertex {
  VertexKind kind;
  std::string name;  // PCI bus id, "nvswitch0", "node3/nic5", "leaf2", ...
  int node = 0;      // which node of a cluster the vertex belongs to (-1 for fabric switches)
  int numa = -1;     // NUMA domain (CPU socket) for GPUs, NICs, PCI switches and CPUs
};

struct Link {
  VertexId src;
  VertexId dst;
  LinkKind kind;
  Bandwidth bandwidth;  // per direction; links are directed, a cable is two links
  SimTime latency;      // per hop (alpha)
  std::string detail;   // human-readable spec, e.g. "NVLink4 x18", "PCIe Gen5 x16", "NDR 400G"
};

struct GpuInfo {
  VertexId vertex;
  int rank = 0;  // global rank: node * gpus_per_node + local index
  int node = 0;
  int local_index = 0;
  int numa = -1;
  const GpuModel* model = nullptr;  // its catalogue row (gpu_models.hpp): name, sm, arch, datasheet values
  std::optional<VertexId> nearest_nic;  // the NIC NCCL would pair with this GPU (same PCI switch, else NUMA)
  Bandwidth nvlink_bandwidth;  // total GPU-fabric bandwidth (NVLink/xGMI) per direction
  int fabric_links = 0;        // NVLink/xGMI links that bandwidth sums (to peers and to NVSwitches)
  Bandwidth pcie_bandwidth;
  Bandwidth nic_bandwidth;     // of nearest_nic, 0 when none
};

// A GPU-to-GPU path. Links are in order from source to destination.
struct Route {
  std::vector<LinkId> links;
  SimTime latency;       // sum of hop latencies
  Bandwidth bottleneck;  // min link bandwidth along the path
  PathClass path_class = PathClass::Dis;
};

struct TopologyChange;

class Topology {
 public:
  struct Impl;
  explicit Topology(std::shared_ptr<const Impl> impl);

  const std::string& name() const;
  const std::string& source_file() const;

  int num_gpus() const;
  int num_nodes() const;
  int gpus_per_node() const;

  const std::vector<Vertex>& vertices() const;
  const std::vector<Link>& links() const;
  const Vertex& vertex(VertexId id) const;
  const Link& link(LinkId id) const;
  const GpuInfo& gpu(int rank) const;

  bool has_nvswitch() const;  // GPUs of a node meet in an NVSwitch (NVLS-capable when Hopper+)

  // The transport NCCL drives between nodes (the cluster file's transport=, default ib).
  const NetTransport& transport() const;

  // Line rate of a NIC vertex's port (from <net speed> or the machine description); 0 for other vertices.
  Bandwidth nic_speed(VertexId nic) const;

  // Best route from GPU `src` to GPU `dst` (NCCL's rule: best path class, then bandwidth, then hops).
  // Computed on first ask and kept per pair (the reference stays valid as long as the topology), so memory
  // follows the pairs asked for; safe to call from many threads at once.
  const Route& route(int src_rank, int dst_rank) const;
  // How many routes are kept so far (memory reports, tests).
  std::size_t cached_routes() const;

  // The link model constants used to build this topology (after profile overrides): by name for
  // profiles and fingerprints, typed for the code.
  const ParamTable& link_params() const;
  const LinkConstants& link_constants() const;

  // A value another part derives from this topology alone and keeps with it (sim's NCCL graph search
  // per tuning-table version): `make` runs on the first ask for `key`, and every copy of this topology
  // shares the result; a topology built otherwise (another file, a what-if change) has its own. `key`
  // is an address the caller owns that names the value; safe to call from many threads at once.
  std::shared_ptr<const void> derived(const void* key, const std::function<std::shared_ptr<const void>()>& make) const;

  // What-if: this topology with `changes` applied (what_if.cpp), named "NAME (fail nic:..., ...)" so that
  // outputs and tune checkpoints never mistake it for the healthy machine. A failed NIC loses its links and
  // its GPUs pair with another NIC of their node (same NUMA node first, then the one serving fewest GPUs),
  // so routes and NCCL's NIC count follow; a NIC left with no network or host link counts as failed. Names
  // the topology lacks, and changes that cut a GPU off, are DiagErrors naming the change and the valid names.
  Topology with_changes(const std::vector<TopologyChange>& changes) const;

 private:
  std::shared_ptr<const Impl> impl_;
};

// One what-if change (`--fail`, `--degrade`), by the names `ccforge topo show` prints.
struct TopologyChange {
  enum class Kind { FailNic, FailLink, DegradeLink };
  Kind kind = Kind::FailNic;
  std::string target;     // a NIC ("n0/mlx5_0", or "0/mlx5_0" as NODE/NAME) or a cable "A-B" of two vertex names
  double fraction = 1.0;  // DegradeLink: the share of the cable's bandwidth left, in (0, 1]
  std::string text() const;  // as given: "nic:n0/mlx5_0", "link:A-B", "link:A-B=0.5"
};

// `--fail nic:NODE/NAME` or `--fail link:A-B`; `--degrade link:A-B=FRACTION`. Malformed text is a
// DiagError naming the flag; the names themselves are checked by Topology::with_changes.
TopologyChange parse_failure(std::string_view text);
TopologyChange parse_degradation(std::string_view text);

// NIC port speeds ccforge accepts, in Gb/s: above 0 and at most 100 Tb/s, a sanity bound 125 times the
// 800 Gb/s ports of NVIDIA Quantum-X800 (XDR) switches, the fastest shipping (NVIDIA datasheet).
inline constexpr double kMaxNicGbps = 100000;

// Completes Azure's partial PCI-only NCCL files (no <gpu>/<nvlink>/<net>), as NCCL does at run time
// from NVML and the IB stack. Given in a ccforge machine file or on the command line.
struct MachineDescription {
  std::string gpu_model;      // "H100 SXM", "A100 SXM", ... (selects sm and NVLink count per GPU)
  std::string fabric;         // "nvswitch" | "none"
  std::optional<int> nvlinks_per_gpu;        // overrides the model's default link count
  std::optional<double> nic_speed_gbps;      // per NIC, e.g. 400 for NDR
};

// One `<param name="..." value="..."/>` of a profile file. Names are dotted and prefixed by the part
// that owns them: "link." entries belong to the topology's link model, "sim." entries to the simulator.
struct ProfileEntry {
  std::string name;
  double value = 0.0;
  SourceLoc loc;
};

// Reads a profile file (<profile><param name="..." value="..."/>...</profile>, written by
// `ccforge calibrate`). Malformed XML or values are DiagErrors naming the file and line.
std::vector<ProfileEntry> read_profile(const std::filesystem::path& profile_path);

// Applies the entries whose name starts with `prefix` to `table`; an entry with that prefix that the
// table does not know is a DiagError naming the profile line.
void apply_profile(ParamTable& table, const std::vector<ProfileEntry>& entries, std::string_view prefix);

// Writes `tables` as one profile file (atomically), each entry with its source as a comment.
void write_profile(const std::vector<const ParamTable*>& tables, const std::filesystem::path& profile_path);

struct LoadOptions {
  std::optional<MachineDescription> machine;  // required for partial files that do not name one
  std::vector<ProfileEntry> profile;          // "link." overrides (calibration output)
};

// Loads an NCCL topology XML file or a ccforge cluster file (detected by its root element).
// Throws DiagError naming file and line for anything malformed or impossible.
Topology load_topology(const std::filesystem::path& path, const LoadOptions& options = {});

// `topo show --write`: saves the node topology at `path` (atomically, at `out`) as a ccforge <node> file
// whose <machine> is `machine` (else the file's own), so that a partial file loads without flags. A
// cluster file is a DiagError: its node file is the one to complete.
void write_completed_topology(const std::filesystem::path& path, const std::optional<MachineDescription>& machine,
                              const std::filesystem::path& out);

// The default link model: per link kind latency and bandwidth with their sources ("link." names).
ParamTable default_link_params();

// What `ccforge topo show` prints, computed here so the CLI only formats it.
struct GpuSummary {
  int rank = 0;
  std::string name;  // PCI bus id (prefixed "nN/" in clusters)
  std::string model;
  int numa = -1;
  Bandwidth nvlink_bandwidth, pcie_bandwidth, nic_bandwidth;
  std::string nearest_nic;  // empty when the node has no NIC
};

// Routes of one kind of GPU pair ("intra-node", "inter-node same rail", ...), from node 0's GPUs.
struct PairGroupSummary {
  std::string group;
  int pairs = 0;
  Bandwidth min_bottleneck, max_bottleneck;
  SimTime min_latency, max_latency;
  PathClass best_class = PathClass::Dis, worst_class = PathClass::Loc;
};

struct CountByName {
  std::string name;
  int count = 0;
};

struct TopologySummary {
  std::string name, source_file;
  int num_gpus = 0, num_nodes = 0, gpus_per_node = 0;
  bool has_nvswitch = false;
  std::vector<CountByName> vertices_by_kind;  // every VertexKind, in enum order
  std::vector<CountByName> links_by_kind;     // directed links by LinkKind (a cable is two)
  std::vector<CountByName> gpus_by_model;     // e.g. {"H100 SXM", 8}
  std::vector<CountByName> nics_by_speed;     // e.g. {"400G", 8}
  std::vector<GpuSummary> gpus;               // node 0's GPUs (every node of a cluster is a copy)
  // Full GPU x GPU matrices for small topologies (num_gpus <= full_matrix_max_gpus), else empty.
  std::vector<std::vector<Route>> matrix;
  std::vector<PairGroupSummary> pair_groups;  // always filled
};

TopologySummary summarize(const Topology& topology, int full_matrix_max_gpus = 16);

}  // namespace ccforge::topo
