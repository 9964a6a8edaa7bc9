// How NCCL drives each inter-node transport, declared once per transport with every constant's unit and
// source: what the simulator charges per network message beyond NCCL's own IB hop, what the network
// plugin tells NCCL's tuner, the NCCL variables the plugin (or its vendor's documented profile) sets,
// and the framing share of the line rate (values: sim/src/net/transports.cpp; sim/src/net/transport_costs.cpp
// turns them into step and link costs).
#pragma once

#include <string_view>
#include <vector>

#include "ccforge/topology/transport.hpp"

namespace ccforge::sim::net {

struct Cited {
  double value;
  const char* unit;
  const char* source;
};

// An NCCL variable the plugin sets unless the run did (aws-ofi-nccl: setenv(.., 0); GCP profiles:
// sourced before the run's own exports).
struct PluginEnv {
  const char* assignment;  // NAME=VALUE
  const char* source;
};

struct TransportConstants {
  topo::TransportKind kind;
  const char* plugin;  // what NCCL loads to drive it
  // One network message's one-way cost beyond what NCCL's IB verbs path costs (the topology's NIC hops,
  // link.ib.latency, and the proxy's sim.net.proxy_us): the plugin's and NIC's own work per message.
  Cited message_us;
  // ncclNetProperties_t.latency: NCCL's tuner adds it to hwLat[NET] (twice for Simple: the flush),
  // NCCL v2.18.3-1..v2.28.9-1 src/graph/tuning.cc `interLat += graphs[a]->latencyInter`.
  Cited reported_latency_us;
  // Payload share of the line rate relative to IB's framing, which sim.link.net.efficiency already holds.
  Cited framing;
  // Parallel streams a connection spreads a message over (QPs, sockets or flows).
  Cited streams;
  // Where a device is several NICs (rails: the cluster's nics_per_node over the node's NICs), the message size
  // per rail the plugin stripes at: a message goes over ceil(bytes / this) rails, at most all of them (fewer
  // to divide them evenly), each rail bound at one NIC's rate. 0: every message uses the whole device.
  Cited stripe_min_bytes;
  // NCCL_BUFFSIZE the plugin's profile sets: Simple's buffer per connection, NCCL_STEPS slots of it make a
  // step (one network message); 0 leaves NCCL's default (src/init.cc DEFAULT_BUFFSIZE 4 MiB).
  Cited simple_buffer_bytes;
  // NCCL_P2P_NET_CHUNKSIZE the profile sets: a send/recv's Simple step across nodes; 0 leaves NCCL's 128 KiB.
  Cited p2p_net_chunk_bytes;
  std::vector<PluginEnv> env;
};

const TransportConstants& transport_constants(topo::TransportKind kind);

// The profile value that records `kind` (sim.net.transport: a profile calibrated on one transport is
// refused on a cluster of another).
inline double transport_profile_value(topo::TransportKind kind) { return static_cast<double>(static_cast<int>(kind)); }

}  // namespace ccforge::sim::net
