// A cluster's transport (its cluster file's transport=) turned into what the simulator charges and what
// NCCL's tuner sees: per-message cost, framing share of the line rate, the latency the plugin reports,
// and the NCCL variables the plugin sets where the run left them unset.
#pragma once

#include "ccforge/common/params.hpp"
#include "ccforge/sim/constants.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/sim/run_conditions.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::sim::net {

// Extra one-way cost of one network message on this topology's transport (a profile's sim.net.message_us
// where it gives one); 0 on one node. A profile calibrated on another transport (sim.net.transport) is
// refused with a DiagError.
SimTime message_cost(const topo::Topology& topo, const SimConstants& params);

// Payload share of a NIC's line rate relative to IB's framing (1 for IB).
double framing_share(const topo::Topology& topo);
// Simple's step (one buffer slot, a network message's size) on this topology: the plugin profile's
// NCCL_BUFFSIZE / NCCL_STEPS across nodes where it sets one, else NCCL's default (ir::step_bytes).
double simple_step_bytes(const topo::Topology& topo);
// A send/recv's Simple step across nodes: the profile's NCCL_P2P_NET_CHUNKSIZE, else NCCL's 128 KiB.
double p2p_net_chunk_bytes(const topo::Topology& topo);
// Rails a network message of `message_bytes` is striped over on this topology's transport: all of a
// device's (topo::NetTransport::nics_per_device) unless the plugin stripes by size (stripe_min_bytes).
int message_rails(const topo::Topology& topo, double message_bytes);
// Wire bytes/s one connection can send a message of `message_bytes` at over `route`: the rails it is
// striped over, each one physical NIC of the route's NIC links (their capacity as link_capacities gives
// it, over nics_per_device); infinity off the network or where the message uses the whole device.
double connection_bytes_per_s(const topo::Topology& topo, const SimConstants& params, const topo::Route& route,
                              double message_bytes);
// ncclNetProperties_t.latency of the transport's plugin, which NCCL's tuner adds to hwLat[NET].
double reported_latency_us(const topo::Topology& topo);
// The run's NCCL settings with the plugin's variables filled in where the run did not set them.
NcclSettings with_plugin_env(const topo::Topology& topo, const NcclSettings& run);

}  // namespace ccforge::sim::net
