// The cluster's transport in the simulator: its per-message cost, the latency its plugin reports to
// NCCL's tuner, the variables its plugin sets unless the run did, and profiles bound to one transport.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/sim/transports.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name)).first;
  return it->second;
}

SimParams at(const char* version) {
  SimParams p;
  set_nccl_version(p, parse_nccl_version(version, "test"));
  return p;
}

double allreduce_us(const topo::Topology& t, ByteCount bytes, const SimParams& p, const NcclRequest& request = {}) {
  return simulate_nccl(t, ir::Collective::AllReduce, CallSpec{bytes, DataType::Float}, request, p, nullptr).time.us();
}

// Every transport is declared with a source beside each constant.
TEST(NetTransport, EveryConstantHasASource) {
  for (topo::TransportKind k : {topo::TransportKind::Ib, topo::TransportKind::Roce, topo::TransportKind::Efa,
                                topo::TransportKind::Tcpxo, topo::TransportKind::Tcpx, topo::TransportKind::Socket}) {
    const net::TransportConstants& c = net::transport_constants(k);
    EXPECT_EQ(c.kind, k);
    for (const net::Cited* v : {&c.message_us, &c.reported_latency_us, &c.framing, &c.streams, &c.stripe_min_bytes,
                                 &c.simple_buffer_bytes, &c.p2p_net_chunk_bytes}) {
      EXPECT_GT(std::string(v->source).size(), 10u) << topo::to_string(k);
      EXPECT_GE(v->value, 0.0);
    }
    for (const net::PluginEnv& e : c.env) EXPECT_GT(std::string(e.source).size(), 10u);
  }
}

// The same tree LL call costs EFA's per-message cost on each of its two network crossings (up, down).
TEST(NetTransport, EfaMessagesCostMoreThanIbOnTheSameTree) {
  const SimParams p = at("2.26.2");
  const NcclRequest tree_ll{NcclAlgo::Tree, ir::Protocol::LL};
  const double ib = allreduce_us(load("ndv5-x2.xml"), 4096, p, tree_ll);
  const double efa = allreduce_us(load("p5-x2.xml"), 4096, p, tree_ll);
  const double message = net::transport_constants(topo::TransportKind::Efa).message_us.value;
  EXPECT_NEAR(efa - ib, 2 * message, 0.5);
}

// TCPXO's profile sets NCCL_PROTO=Simple (and its tuner the tree) unless the run sets its own.
TEST(NetTransport, PluginVariablesApplyUnlessTheRunSetsThem) {
  const topo::Topology& tcpxo = load("a3mega-x2.xml");
  SimParams p = at("2.21.5");
  const NcclChoice plugin = nccl_choose(tcpxo, ir::Collective::AllReduce, 4096, {}, p);
  EXPECT_EQ(plugin.proto, ir::Protocol::Simple);
  EXPECT_EQ(plugin.algo, NcclAlgo::Tree);
  apply_nccl_env("NCCL_PROTO=LL", p.nccl, "test");
  EXPECT_EQ(nccl_choose(tcpxo, ir::Collective::AllReduce, 4096, {}, p).proto, ir::Protocol::LL);
  // The same node over IB is free to pick LL.
  EXPECT_EQ(nccl_choose(load("ndv5-x2.xml"), ir::Collective::AllReduce, 4096, {}, at("2.21.5")).proto, ir::Protocol::LL);
}

// aws-ofi-nccl reports 75 us on p5, which NCCL's tuner counts twice against Simple: NVLSTree (Simple) waits
// for larger sizes than over IB.
TEST(NetTransport, ReportedLatencyMovesNcclsChoice) {
  const SimParams p = at("2.26.2");
  EXPECT_EQ(nccl_choose(load("ndv5-x2.xml"), ir::Collective::AllReduce, 4 << 20, {}, p).algo, NcclAlgo::NvlsTree);
  EXPECT_EQ(nccl_choose(load("p5-x2.xml"), ir::Collective::AllReduce, 4 << 20, {}, p).algo, NcclAlgo::Tree);
}

// A profile's message cost replaces the transport's; a profile recorded on EFA is refused on IB.
TEST(NetTransport, ProfileOverridesAndIsBoundToItsTransport) {
  SimParams p = at("2.26.2");
  const NcclRequest tree_ll{NcclAlgo::Tree, ir::Protocol::LL};
  const double own = allreduce_us(load("p5-x2.xml"), 4096, p, tree_ll);
  set_param(p, "sim.net.message_us", 0.0, "test profile");
  EXPECT_LT(allreduce_us(load("p5-x2.xml"), 4096, p, tree_ll), own - 20);
  set_param(p, "sim.net.transport", net::transport_profile_value(topo::TransportKind::Efa), "test profile");
  EXPECT_NO_THROW(allreduce_us(load("p5-x2.xml"), 4096, p, tree_ll));
  try {
    allreduce_us(load("ndv5-x2.xml"), 4096, p, tree_ll);
    FAIL() << "an EFA profile ran on IB";
  } catch (const DiagError& e) {
    EXPECT_NE(std::string(e.what()).find("calibrated on transport efa (sim.net.transport 2), ndv5-x2 runs ib"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ccforge::sim
