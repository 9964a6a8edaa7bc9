// What-if changes (`--fail`, `--degrade`): a copy of the topology's graph with NICs or cables out of
// service or slowed, frozen into a new Topology whose routes are computed afresh.
#include "topology_impl.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>

namespace ccforge::topo {
namespace {

// Error messages list at most this many valid names, then how many there are in all.
constexpr std::size_t kNamesShown = 16;
// The smallest --degrade fraction. Times are int64 picoseconds (at most 9.2e6 s): 2 x 1 TB (the size
// limit, as a ring moves it) over a 1 GB/s link at 1e-3 of its speed takes 2.2e6 s, inside that range;
// at 1e-12 the time wraps and the run reads faster than healthy. A link that slow has failed.
constexpr double kMinDegradeFraction = 1e-3;

[[noreturn]] void fail_change(const std::string& flag, const std::string& text, const std::string& problem, const std::string& fix) {
  fail_at(flag, 0, fmt::format("'{}': {}", text, problem), fix);
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i) out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > kNamesShown) out += fmt::format(", ... ({} in all)", names.size());
  return out;
}

bool is_host_link(LinkKind kind) { return kind == LinkKind::Pcie || kind == LinkKind::CpuInterconnect; }

class ChangeApplier {
 public:
  ChangeApplier(const GraphData& graph, int num_nodes, std::string topology_name)
      : g_(graph), num_nodes_(num_nodes), topology_name_(std::move(topology_name)), removed_(graph.links.size(), false),
        failed_nic_(graph.vertices.size(), false),
        networked_(std::any_of(graph.links.begin(), graph.links.end(), [](const Link& l) { return l.kind == LinkKind::Nic; })) {
    for (std::uint32_t v = 0; v < g_.vertices.size(); ++v) by_name_.emplace(g_.vertices[v].name, v);
  }

  // Applies `change`; returns it as the topology's new name shows it, with a NIC's full name.
  std::string apply(const TopologyChange& change) {
    if (change.kind == TopologyChange::Kind::FailNic) {
      const std::uint32_t nic = resolve_nic(change);
      fail_nic(nic);
      return "fail nic:" + g_.vertices[nic].name;
    }
    const std::vector<std::uint32_t> cable = resolve_cable(change);
    for (std::uint32_t i : cable) {
      if (change.kind == TopologyChange::Kind::FailLink) {
        removed_[i] = true;
        continue;
      }
      Link& l = g_.links[i];
      l.bandwidth.bytes_per_s *= change.fraction;
      // A port that trains at a lower rate reports it, and NCCL reads the NIC's speed from the port.
      if (l.kind == LinkKind::Nic && g_.vertices[l.src.v].kind == VertexKind::Nic)
        g_.nic_speeds[l.src.v] = std::min(g_.nic_speeds[l.src.v], l.bandwidth);
    }
    return (change.kind == TopologyChange::Kind::FailLink ? "fail " : "degrade ") + change.text();
  }

  // The changed graph: removed links dropped, GPUs of dead NICs paired with a live one.
  GraphData finish() {
    std::vector<Link> kept;
    for (std::size_t i = 0; i < g_.links.size(); ++i)
      if (!removed_[i]) kept.push_back(g_.links[i]);
    g_.links = std::move(kept);
    repair_gpus();
    return std::move(g_);
  }

 private:
  const char* flag(const TopologyChange& change) const {
    return change.kind == TopologyChange::Kind::DegradeLink ? "--degrade" : "--fail";
  }

  // Exact names first; NODE/NAME with a node number as the cluster prefixes it ("0/mlx5_0" -> "n0/mlx5_0"),
  // and on one node, whose NICs have no prefix, node 0 as "0/" or "n0/" (--help's nic:NODE/NAME).
  std::uint32_t resolve_nic(const TopologyChange& change) const {
    std::vector<std::string> tries{change.target};
    const std::string& t = change.target;
    if (const auto slash = t.find('/'); slash != std::string::npos && slash > 0) {
      const std::string node = t.substr(0, slash), name = t.substr(slash + 1);
      const bool numbered = node.find_first_not_of("0123456789") == std::string::npos;
      if (num_nodes_ > 1 && numbered) tries.push_back("n" + node + "/" + name);
      if (num_nodes_ == 1 && (node == "0" || node == "n0")) tries.push_back(name);
    }
    for (const std::string& name : tries)
      if (const auto it = by_name_.find(name); it != by_name_.end() && g_.vertices[it->second].kind == VertexKind::Nic) return it->second;
    std::vector<std::string> nics;
    for (const Vertex& v : g_.vertices)
      if (v.kind == VertexKind::Nic) nics.push_back(v.name);
    // The example is a spelling this function takes: a NIC's name exactly as listed.
    fail_change(flag(change), change.text(), fmt::format("{} has no such NIC", topology_name_),
                nics.empty() ? "this topology has no NIC"
                             : fmt::format("e.g. --fail nic:{}; NICs: {}", nics.front(), name_list(nics)));
  }

  void fail_nic(std::uint32_t nic) {
    failed_nic_[nic] = true;
    for (std::size_t i = 0; i < g_.links.size(); ++i)
      if (g_.links[i].src.v == nic || g_.links[i].dst.v == nic) removed_[i] = true;
  }

  std::vector<std::uint32_t> links_between(std::uint32_t a, std::uint32_t b) const {
    std::vector<std::uint32_t> found;
    for (std::uint32_t i = 0; i < g_.links.size(); ++i) {
      const Link& l = g_.links[i];
      if (!removed_[i] && ((l.src.v == a && l.dst.v == b) || (l.src.v == b && l.dst.v == a))) found.push_back(i);
    }
    return found;
  }

  // "A-B": vertex names may hold '-' themselves, so every split is tried; the one joined by a link wins.
  std::vector<std::uint32_t> resolve_cable(const TopologyChange& change) const {
    const std::string& t = change.target;
    std::optional<std::uint32_t> known_end;
    for (std::size_t dash = t.find('-'); dash != std::string::npos; dash = t.find('-', dash + 1)) {
      const auto a = by_name_.find(t.substr(0, dash)), b = by_name_.find(t.substr(dash + 1));
      if (a != by_name_.end() && b != by_name_.end()) {
        if (auto found = links_between(a->second, b->second); !found.empty()) return found;
      }
      if (!known_end && a != by_name_.end()) known_end = a->second;
      if (!known_end && b != by_name_.end()) known_end = b->second;
    }
    if (known_end) {
      std::vector<std::string> cables;
      for (std::size_t i = 0; i < g_.links.size(); ++i)
        if (!removed_[i] && g_.links[i].src.v == *known_end) cables.push_back(g_.vertices[*known_end].name + "-" + g_.vertices[g_.links[i].dst.v].name);
      fail_change(flag(change), change.text(), fmt::format("{} has no such link (failed already, or never there)", topology_name_),
                  cables.empty() ? "that vertex has no link left" : "links of " + g_.vertices[*known_end].name + ": " + name_list(cables));
    }
    std::vector<std::string> names;
    for (const Vertex& v : g_.vertices)
      if (v.kind != VertexKind::Gpu && v.kind != VertexKind::PciSwitch && v.kind != VertexKind::Cpu) names.push_back(v.name);
    fail_change(flag(change), change.text(), fmt::format("{} has no vertex of that name", topology_name_),
                "give link:A-B with names as `ccforge topo show` prints them, e.g. " + name_list(names));
  }

  // A NIC is out of service when failed, when it has no host link left, or, in a cluster, no fabric link.
  bool dead(std::uint32_t nic) const {
    if (failed_nic_[nic]) return true;
    bool host = false, fabric = false;
    for (const Link& l : g_.links) {
      if (l.src.v != nic) continue;
      host |= is_host_link(l.kind);
      fabric |= l.kind == LinkKind::Nic;
    }
    return !host || (networked_ && !fabric);
  }

  // NCCL pairs each GPU with a local NIC; the GPUs of a dead one take a live NIC of their node, preferring
  // their own NUMA node (no CPU interconnect on the way) and then the NIC serving the fewest GPUs.
  void repair_gpus() {
    std::map<std::uint32_t, int> served;
    std::vector<GpuInfo*> orphans;
    for (GpuInfo& gpu : g_.gpus) {
      if (!gpu.nearest_nic) continue;
      if (dead(gpu.nearest_nic->v)) {
        orphans.push_back(&gpu);
      } else {
        ++served[gpu.nearest_nic->v];
        gpu.nic_bandwidth = g_.nic_speeds[gpu.nearest_nic->v];  // lower where its port was degraded
      }
    }
    for (GpuInfo* gpu : orphans) {
      std::optional<std::uint32_t> best;
      auto rank = [&](std::uint32_t nic) { return std::tuple(g_.vertices[nic].numa != gpu->numa, served[nic], nic); };
      for (std::uint32_t v = 0; v < g_.vertices.size(); ++v) {
        const Vertex& x = g_.vertices[v];
        if (x.kind != VertexKind::Nic || x.node != gpu->node || dead(v)) continue;
        if (!best || rank(v) < rank(*best)) best = v;
      }
      gpu->nearest_nic = best ? std::optional(VertexId{*best}) : std::nullopt;
      gpu->nic_bandwidth = best ? g_.nic_speeds[*best] : Bandwidth{};
      if (best) ++served[*best];
    }
  }

  GraphData g_;
  int num_nodes_;
  std::string topology_name_;
  std::map<std::string, std::uint32_t> by_name_;
  std::vector<bool> removed_;
  std::vector<bool> failed_nic_;
  bool networked_;  // the healthy machine's NICs reach a fabric (a cluster)
};

TopologyChange parse_change(std::string_view text, const char* flag, bool degrade) {
  const std::string given(text);
  const std::string usage = degrade ? "use link:A-B=FRACTION, e.g. link:n0/mlx5_0-leaf0=0.5" : "use nic:NODE/NAME or link:A-B";
  TopologyChange change;
  change.kind = degrade ? TopologyChange::Kind::DegradeLink : TopologyChange::Kind::FailLink;
  std::string rest;
  if (text.starts_with("link:")) {
    rest = given.substr(5);
  } else if (!degrade && text.starts_with("nic:")) {
    change.kind = TopologyChange::Kind::FailNic;
    rest = given.substr(4);
  } else {
    fail_change(flag, given, degrade ? "not a link" : "neither a NIC nor a link", usage);
  }
  if (degrade) {
    const auto eq = rest.rfind('=');
    if (eq == std::string::npos) fail_change(flag, given, "no fraction", usage);
    const std::string number = rest.substr(eq + 1);
    errno = 0;
    char* end = nullptr;
    change.fraction = std::strtod(number.c_str(), &end);
    const bool parsed = !number.empty() && end == number.c_str() + number.size() && errno == 0;
    if (!parsed || !std::isfinite(change.fraction) || change.fraction < kMinDegradeFraction || change.fraction > 1)
      fail_change(flag, given, fmt::format("fraction {} is {}", number, parsed ? "out of range" : "not a number"),
                  fmt::format("allowed: >= {:g} and <= 1, the share of bandwidth left; a slower link has failed: --fail link:A-B",
                              kMinDegradeFraction));
    rest.resize(eq);
  }
  if (rest.empty()) fail_change(flag, given, "no name", usage);
  if (change.kind != TopologyChange::Kind::FailNic && rest.find('-') == std::string::npos)
    fail_change(flag, given, "a link names its two ends", usage);
  change.target = rest;
  return change;
}

}  // namespace

std::string TopologyChange::text() const {
  switch (kind) {
    case Kind::FailNic: return "nic:" + target;
    case Kind::FailLink: return "link:" + target;
    case Kind::DegradeLink: return fmt::format("link:{}={:g}", target, fraction);
  }
  return target;
}

TopologyChange parse_failure(std::string_view text) { return parse_change(text, "--fail", false); }
TopologyChange parse_degradation(std::string_view text) { return parse_change(text, "--degrade", true); }

Topology Topology::with_changes(const std::vector<TopologyChange>& changes) const {
  ChangeApplier applier(impl_->graph, impl_->num_nodes, impl_->name);
  std::string applied;
  for (const TopologyChange& change : changes) applied += (applied.empty() ? "" : ", ") + applier.apply(change);
  Topology changed(std::make_shared<const Impl>(fmt::format("{} ({})", impl_->name, applied), impl_->source_file, impl_->num_nodes,
                                                applier.finish(), impl_->params, impl_->transport));
  for (int dst = 1; dst < changed.num_gpus(); ++dst) {
    if (changed.route(0, dst).path_class != PathClass::Dis) continue;
    fail_at(changes.size() == 1 ? (changes[0].kind == TopologyChange::Kind::DegradeLink ? "--degrade" : "--fail") : "--fail/--degrade", 0,
            fmt::format("{}: GPU rank {} ({}) is cut off from GPU rank 0", applied, dst, changed.vertex(changed.gpu(dst).vertex).name),
            "no collective can run; fail fewer NICs or links");
  }
  return changed;
}

}  // namespace ccforge::topo
