// The public API on the bundled topologies and real MSCCL files: choices, physics bounds, errors,
// traces, determinism and concurrent use.
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ccforge/sim/sim.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const std::string kRoot = CCFORGE_SOURCE_DIR;

const topo::Topology& ndv5() {
  static const topo::Topology t = topo::load_topology(kRoot + "/data/topologies/ndv5.xml");
  return t;
}

CallSpec half(ByteCount bytes) { return CallSpec{bytes, DataType::Half}; }

TEST(SimApi, ParsesNcclRequests) {
  EXPECT_TRUE(parse_nccl_request("nccl"));
  const auto r = parse_nccl_request("NCCL:Ring:ll128");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->algo, NcclAlgo::Ring);
  EXPECT_EQ(r->proto, ir::Protocol::LL128);
  EXPECT_FALSE(parse_nccl_request("nccl:ring:fast"));
  EXPECT_FALSE(parse_nccl_request("ring"));
  EXPECT_FALSE(parse_nccl_request("nccl:"));
}

TEST(SimApi, AlgorithmBandwidthIsBytesOverTime) {
  EXPECT_DOUBLE_EQ(algbw_gbs(1000, SimTime::from_us(1)), 1.0);
}

TEST(SimApi, NcclPicksLatencyProtocolSmallAndNvlsLarge) {
  const SimParams params;
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, 1024, {}, params).name(), "nccl:ring:LL");
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllReduce, 1u << 30, {}, params).name(), "nccl:nvls:Simple");
  // NCCL 2.18 has no NVLS allgather; 2.28 does.
  EXPECT_EQ(nccl_choose(ndv5(), ir::Collective::AllGather, 1u << 30, {}, params).algo, NcclAlgo::Ring);
  SimParams v228;
  set_param(v228, "sim.nccl.version", 2.28, "test");
  EXPECT_NE(nccl_choose(ndv5(), ir::Collective::AllGather, 1024, {}, v228).model_us,
            nccl_choose(ndv5(), ir::Collective::AllGather, 1024, {}, params).model_us);
}

TEST(SimApi, AlltoallRunsAsGroupedSendRecv) {
  // 1 GB alltoall on 8 GPUs: each port sends and receives 7/8 GB; at most 370.8 GB/s per port.
  const ByteCount n = 1u << 30;
  const SimResult r = simulate_nccl(ndv5(), ir::Collective::AllToAll, half(n), {}, SimParams{});
  EXPECT_EQ(r.algorithm, "nccl:p2p:Simple");
  EXPECT_GT(r.time.seconds(), 7.0 / 8 * n / 370.8e9);
  EXPECT_LT(r.time.seconds(), 1.2 * 7.0 / 8 * n / 370.8e9);
}

TEST(SimApi, RingAllgatherStaysUnderTheLinkBound) {
  // Each GPU receives 7/8 of the data over its NVSwitch port: busbw cannot beat the port's achievable
  // rate (18 x 25 GB/s x 0.824 = 370.8 GB/s), and a 1 GB Simple ring should get most of it.
  const SimParams params;
  const ByteCount n = 1u << 30;
  const SimResult r = simulate_nccl(ndv5(), ir::Collective::AllGather, half(n), *parse_nccl_request("nccl:ring:simple"), params);
  const double busbw = algbw_gbs(n, r.time) * ir::bus_bandwidth_factor(ir::Collective::AllGather, 8);
  EXPECT_LT(busbw, 370.8);
  EXPECT_GT(busbw, 0.9 * 370.8);
}

TEST(SimApi, ProtocolsOrderAsTheirWireCostsSay) {
  // At 256 MB the wire decides: Simple (full payload) beats LL128 (120/128), which beats LL (1/2).
  const SimParams params;
  auto time = [&](const char* spec) {
    return simulate_nccl(ndv5(), ir::Collective::AllGather, half(256u << 20), *parse_nccl_request(spec), params).time;
  };
  EXPECT_LT(time("nccl:ring:simple"), time("nccl:ring:ll128"));
  EXPECT_LT(time("nccl:ring:ll128"), time("nccl:ring:ll"));
}

TEST(SimApi, EveryBundledEightGpuMsccFileRuns) {
  const SimParams params;
  int ran = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "/tests/data/msccl")) {
    if (entry.path().extension() != ".xml") continue;
    const ir::Algorithm algo = ir::read_msccl_xml(entry.path());
    if (algo.ngpus != 8 || algo.collective == ir::Collective::AllToAll) continue;
    const ByteCount unit = 2u * algo.nchunksperloop;
    const SimResult small = simulate(ndv5(), algo, half(unit * 64), params);
    const SimResult large = simulate(ndv5(), algo, half(unit * 65536), params);
    EXPECT_GT(small.time.ps, 0) << entry.path();
    EXPECT_GT(large.time, small.time) << entry.path();
    ++ran;
  }
  EXPECT_GE(ran, 5);
}

// Each declared parameter is bound to a field of its own: setting one by name moves it and no other
// (two declarations on one field, or a name bound to the wrong field, would fail here).
TEST(SimApi, EveryParameterNameIsBoundToItsOwnField) {
  const ParamTable defaults = default_sim_params();
  for (const Param& p : defaults.all()) {
    SimParams changed;
    const double value = p.name == "sim.nccl.version" ? 2.28 : p.value + 1;
    ASSERT_TRUE(set_param(changed, p.name, value, "test")) << p.name;
    const ParamTable table = param_table(changed);
    for (const Param& q : table.all()) {
      if (q.name == p.name) EXPECT_DOUBLE_EQ(q.value, value) << q.name;
      else EXPECT_DOUBLE_EQ(q.value, defaults.find(q.name)->value) << p.name << " moved " << q.name;
    }
  }
  SimParams unchanged;
  EXPECT_FALSE(set_param(unchanged, "sim.tb_bw.LL.sm91", 1.0, "test"));
}

TEST(SimApi, ProfileOverridesSimParameters) {
  // The profile sets the LL base latency from 6.6 to 1.0 us: a latency-bound 1 KB ring LL allreduce
  // gets exactly 5.6 us faster.
  SimParams tuned;
  apply_profile(kRoot + "/tests/data/sim/faster_ll_profile.xml", tuned);
  const auto ll = *parse_nccl_request("nccl:ring:ll");
  const SimTime base = simulate_nccl(ndv5(), ir::Collective::AllReduce, half(1024), ll, SimParams{}).time;
  const SimTime fast = simulate_nccl(ndv5(), ir::Collective::AllReduce, half(1024), ll, tuned).time;
  EXPECT_EQ(base - fast, SimTime::from_us(5.6));
}

// Ranks 0 and 1 each receive from the other before sending: neither receive can ever complete.
ir::Algorithm deadlocking_pair() { return ir::read_msccl_xml(kRoot + "/tests/data/sim/deadlock_allgather_8.xml"); }

TEST(SimApi, DeadlockIsAOneLineErrorNotAHang) {
  try {
    simulate(ndv5(), deadlocking_pair(), half(1024), SimParams{});
    FAIL() << "expected a DiagError";
  } catch (const DiagError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlocks"), std::string::npos) << e.what();
  }
}

TEST(SimApi, ASizeOutsideTheChunksIsAResultForSearchesAndAnErrorForSimulate) {
  const ir::Algorithm a = ir::read_msccl_xml(kRoot + "/tests/data/msccl/mt_allreduce_allpairs_8_i2_LL.xml");
  EXPECT_FALSE(simulate_if_fits(ndv5(), a, half(1000), SimParams{}));
  EXPECT_THROW(simulate(ndv5(), a, half(1000), SimParams{}), DiagError);
  const std::optional<SimResult> fits = simulate_if_fits(ndv5(), a, half(1u << 20), SimParams{});
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->time, simulate(ndv5(), a, half(1u << 20), SimParams{}).time);
  // Faults of the algorithm are still errors.
  EXPECT_THROW(simulate_if_fits(ndv5(), deadlocking_pair(), half(1024), SimParams{}), DiagError);
}

TEST(SimApi, ModelFactsAreTypedAndFollowTheParameters) {
  const topo::Topology ndv4 = topo::load_topology(kRoot + "/data/topologies/ndv4.xml");
  const Model h100 = build_model(ndv5(), SimParams{}), a100 = build_model(ndv4, SimParams{});
  EXPECT_EQ(h100.link_capacity.size(), ndv5().links().size());
  ASSERT_TRUE(h100.nvls_efficiency);  // Hopper NVSwitch: NVLS runs
  EXPECT_FALSE(a100.nvls_efficiency);  // Ampere: it does not
  EXPECT_FALSE(knob_param(SimParams{}, Knob::NvlsEfficiency, ndv4.gpu(0).model->arch));
  // A profile moves the facts: the fitted knob's name is the parameter a profile sets.
  SimParams tuned;
  set_param(tuned, *knob_param(tuned, Knob::NvlsEfficiency, ndv5().gpu(0).model->arch), 0.5, "test");
  set_param(tuned, *knob_param(tuned, Knob::NvlinkEfficiency, ndv5().gpu(0).model->arch), 0.5, "test");
  const Model slower = build_model(ndv5(), tuned);
  EXPECT_EQ(*slower.nvls_efficiency, 0.5);
  int slower_links = 0;
  for (std::size_t l = 0; l < h100.link_capacity.size(); ++l) {
    EXPECT_LE(slower.link_capacity[l], h100.link_capacity[l]);
    slower_links += slower.link_capacity[l] < h100.link_capacity[l];
  }
  EXPECT_GT(slower_links, 0);  // the NVLink/NVSwitch ones
  EXPECT_EQ(nvls_step_handoff(SimTime::from_us(1.0)), SimTime::from_us(4.0));
}

TEST(SimApi, SendWithoutPeerIsAnErrorNotACrash) {
  ir::Algorithm a = deadlocking_pair();
  a.gpus[0].tbs[0].send_peer = -1;
  EXPECT_THROW(simulate(ndv5(), a, half(1024), SimParams{}), DiagError);
}

TEST(SimApi, TraceIsValidJsonWithNamedTracks) {
  Trace trace;
  simulate_nccl(ndv5(), ir::Collective::AllReduce, half(64u << 10), {}, SimParams{}, &trace);
  const auto doc = nlohmann::json::parse(to_chrome_trace_json(trace));
  int names = 0, slices = 0, counters = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M") {
      ++names;
      EXPECT_FALSE(e["args"]["name"].get<std::string>().empty());
    }
    slices += e["ph"] == "X";
    counters += e["ph"] == "C";
  }
  EXPECT_GT(names, 8);
  EXPECT_GT(slices, 0);
  EXPECT_GT(counters, 0);
}

TEST(SimApi, DeterministicAndSafeFromManyThreads) {
  const SimParams params;
  const SimTime expected = simulate_nccl(ndv5(), ir::Collective::AllReduce, half(8u << 20), {}, params).time;
  std::vector<SimTime> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { got[i] = simulate_nccl(ndv5(), ir::Collective::AllReduce, half(8u << 20), {}, params).time; });
  }
  for (auto& t : threads) t.join();
  for (SimTime t : got) EXPECT_EQ(t, expected);
}

}  // namespace
}  // namespace ccforge::sim
