// Topology's accessors and its lazily computed, thread-safe route cache.
#include "topology_impl.hpp"

#include "link_params.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccforge::topo {

Topology::Impl::Impl(std::string name_, std::string source_file_, int num_nodes_, GraphData graph_, ParamTable params_, NetTransport transport_)
    : name(std::move(name_)),
      source_file(std::move(source_file_)),
      num_nodes(num_nodes_),
      gpus_per_node(static_cast<int>(graph_.gpus.size()) / std::max(num_nodes_, 1)),
      graph(std::move(graph_)),
      params(std::move(params_)),
      constants(bind_link_constants(params)),
      transport(transport_),
      finder(graph),
      routes(finder) {}

Topology::Topology(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& Topology::name() const { return impl_->name; }
const std::string& Topology::source_file() const { return impl_->source_file; }
int Topology::num_gpus() const { return static_cast<int>(impl_->graph.gpus.size()); }
int Topology::num_nodes() const { return impl_->num_nodes; }
int Topology::gpus_per_node() const { return impl_->gpus_per_node; }
const NetTransport& Topology::transport() const { return impl_->transport; }
const std::vector<Vertex>& Topology::vertices() const { return impl_->graph.vertices; }
const std::vector<Link>& Topology::links() const { return impl_->graph.links; }
const Vertex& Topology::vertex(VertexId id) const { return impl_->graph.vertices.at(id.v); }
const Link& Topology::link(LinkId id) const { return impl_->graph.links.at(id.v); }
const GpuInfo& Topology::gpu(int rank) const { return impl_->graph.gpus.at(static_cast<std::size_t>(rank)); }
const ParamTable& Topology::link_params() const { return impl_->params; }
const LinkConstants& Topology::link_constants() const { return impl_->constants; }

bool Topology::has_nvswitch() const {
  const auto& v = impl_->graph.vertices;
  return std::any_of(v.begin(), v.end(), [](const Vertex& x) { return x.kind == VertexKind::NvSwitch; });
}

Bandwidth Topology::nic_speed(VertexId nic) const { return impl_->graph.nic_speeds.at(nic.v); }

const Route& Topology::route(int src_rank, int dst_rank) const {
  if (src_rank < 0 || src_rank >= num_gpus() || dst_rank < 0 || dst_rank >= num_gpus()) {
    throw std::out_of_range("route: rank out of range");
  }
  return impl_->routes.get(src_rank, dst_rank);
}

std::size_t Topology::cached_routes() const { return impl_->routes.size(); }

std::shared_ptr<const void> Topology::derived(const void* key, const std::function<std::shared_ptr<const void>()>& make) const {
  {
    const std::lock_guard<std::mutex> lock(impl_->derived_mutex);
    if (const auto it = impl_->derived.find(key); it != impl_->derived.end()) return it->second;
  }
  // Made unlocked, so that a slow derivation does not hold up other keys; the first one stored wins.
  std::shared_ptr<const void> value = make();
  const std::lock_guard<std::mutex> lock(impl_->derived_mutex);
  return impl_->derived.emplace(key, std::move(value)).first->second;
}

}  // namespace ccforge::topo
