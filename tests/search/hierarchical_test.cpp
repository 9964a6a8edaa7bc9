// Hierarchical (two-level) candidates on two NDv5 nodes: the two directions of every exchange run on
// their own threadblocks, and at 1 GB the allreduce beats NCCL's ring and tree (not NVLS-tree, whose
// NVSwitch-side reduction halves the NVLink traffic and which MSCCL XML cannot express).
#include <gtest/gtest.h>

#include <string>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {
namespace {

using C = ir::Collective;

GenRequest two_nodes_of_eight(C coll) {
  GenRequest req;
  req.collective = coll;
  req.ngpus = 16;
  req.gpus_per_node = 8;
  return req;
}

ir::Algorithm generate(const GenRequest& req) {
  const Generated g = try_generate(*find_generator("hierarchical"), req);
  if (!g.algorithm) throw std::runtime_error("hierarchical declined: " + g.why_not);
  return *g.algorithm;
}

// A tb that sends to and receives from the same peer runs both directions one after the other: the
// rank whose receive comes first in program order waits for it before it sends.
TEST(SearchHierarchical, NoThreadblockCarriesBothDirectionsOfAnExchange) {
  for (C coll : {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll}) {
    const ir::Algorithm algo = generate(two_nodes_of_eight(coll));
    for (const ir::GpuProgram& gpu : algo.gpus)
      for (const ir::ThreadBlock& tb : gpu.tbs)
        EXPECT_FALSE(tb.send_peer >= 0 && tb.send_peer == tb.recv_peer)
            << ir::to_string(coll) << " rank " << gpu.rank << " tb " << tb.id << " peer " << tb.send_peer;
  }
}

TEST(SearchHierarchical, AllreduceAt1GBBeatsNcclRingAndTreeOnTwoNdv5Nodes) {
  const topo::Topology t = topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/ndv5-x2.xml");
  const sim::SimParams params;
  const sim::CallSpec call{ByteCount{1} << 30, *sim::data_type_from_string("half")};
  const SimTime hier = sim::simulate(t, generate(two_nodes_of_eight(C::AllReduce)), call, params).time;
  for (const char* nccl : {"nccl:ring:simple", "nccl:tree:simple"}) {
    const SimTime theirs = sim::simulate_nccl(t, C::AllReduce, call, *sim::parse_nccl_request(nccl), params).time;
    EXPECT_LT(hier.us(), theirs.us()) << "hierarchical " << hier.us() << " us vs " << nccl << " " << theirs.us() << " us";
  }
}

}  // namespace
}  // namespace ccforge::search
