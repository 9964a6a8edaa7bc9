#include "transport_costs.hpp"

#include "ccforge/sim/sim.hpp"
#include "ccforge/sim/transports.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ccforge/common/diag.hpp"
#include "ccforge/ir/executor_facts.hpp"

namespace ccforge::sim::net {
namespace {

const TransportConstants& constants(const topo::Topology& topo) { return transport_constants(topo.transport().kind); }

template <class T>
void fill(std::optional<T>& run, const std::optional<T>& plugin) {
  if (!run) run = plugin;
}

}  // namespace

SimTime message_cost(const topo::Topology& topo, const SimConstants& params) {
  if (topo.num_nodes() < 2) return SimTime{};
  const topo::TransportKind kind = topo.transport().kind;
  const int recorded = params.net_transport;
  if (recorded >= 0 && recorded != transport_profile_value(kind)) {
    fail_at("sim.net.transport", 0,
            fmt::format("the profile was calibrated on transport {} (sim.net.transport {}), {} runs {}",
                        recorded <= 5 ? topo::to_string(static_cast<topo::TransportKind>(recorded)) : "?",
                        recorded, topo.name(), topo::to_string(kind)),
            "calibrate a profile on a log of this cluster, or simulate without --profile");
  }
  return SimTime::from_us(params.net_message_us >= 0 ? params.net_message_us : constants(topo).message_us.value);
}

double framing_share(const topo::Topology& topo) { return constants(topo).framing.value; }

double simple_step_bytes(const topo::Topology& topo) {
  const double buffer = constants(topo).simple_buffer_bytes.value;
  if (topo.num_nodes() < 2 || buffer <= 0) return static_cast<double>(ir::step_bytes(ir::Protocol::Simple));
  return buffer / ir::kNcclSteps;
}

double p2p_net_chunk_bytes(const topo::Topology& topo) {
  // NVIDIA/nccl v2.26.2-1 src/init.cc NCCL_PARAM(P2pNetChunkSize, "P2P_NET_CHUNKSIZE", (1 << 17)).
  constexpr double kNcclDefault = 131072;
  const double chunk = constants(topo).p2p_net_chunk_bytes.value;
  return chunk > 0 ? chunk : kNcclDefault;
}

int message_rails(const topo::Topology& topo, double message_bytes) {
  const int rails = topo.transport().nics_per_device();
  const double stripe = constants(topo).stripe_min_bytes.value;
  if (rails <= 1 || stripe <= 0) return rails;
  // aws-ofi-nccl get_num_stripes: ceil(size / min stripe), clamped to [1, rails], then the largest divisor of
  // the rails not above it.
  int stripes = static_cast<int>(std::clamp(std::ceil(message_bytes / stripe), 1.0, static_cast<double>(rails)));
  while (rails % stripes != 0) --stripes;
  return stripes;
}

double connection_bytes_per_s(const topo::Topology& topo, const SimConstants& params, const topo::Route& route,
                              double message_bytes) {
  constexpr double kUnbound = std::numeric_limits<double>::infinity();
  if (route.path_class != topo::PathClass::Net) return kUnbound;
  const int rails = topo.transport().nics_per_device();
  const int used = message_rails(topo, message_bytes);
  if (used >= rails) return kUnbound;
  double nic = kUnbound;
  const topo::GpuArch arch = topo.gpu(0).model->arch;
  for (LinkId id : route.links) {
    const topo::Link& l = topo.link(id);
    if (l.kind != topo::LinkKind::Nic && l.kind != topo::LinkKind::Network) continue;
    nic = std::min(nic, l.bandwidth.bytes_per_s * link_efficiency(params, l.kind, arch) * framing_share(topo));
  }
  return nic / rails * used;
}

double reported_latency_us(const topo::Topology& topo) {
  return topo.num_nodes() > 1 ? constants(topo).reported_latency_us.value : 0.0;
}

NcclSettings with_plugin_env(const topo::Topology& topo, const NcclSettings& run) {
  if (topo.num_nodes() < 2) return run;
  NcclSettings plugin;
  for (const PluginEnv& e : constants(topo).env) apply_nccl_env(e.assignment, plugin, e.source);
  NcclSettings s = run;
  fill(s.algorithms, plugin.algorithms);
  fill(s.protocols, plugin.protocols);
  fill(s.min_channels, plugin.min_channels);
  fill(s.max_channels, plugin.max_channels);
  fill(s.min_ctas, plugin.min_ctas);
  fill(s.max_ctas, plugin.max_ctas);
  fill(s.nvls, plugin.nvls);
  fill(s.ib_qps_per_connection, plugin.ib_qps_per_connection);
  fill(s.net_gdr_level, plugin.net_gdr_level);
  fill(s.pat, plugin.pat);
  return s;
}

}  // namespace ccforge::sim::net
