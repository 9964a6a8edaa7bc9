// NCCL's tree under receiver back-pressure (tree.cpp): a sender is never more than NCCL_STEPS chunks
// ahead of what its receiver has passed on; and where the tree's chunk loop proves a period (2 nodes;
// across 16 or more it does not, sim/README.md, Engine limits) the closed form equals the full simulation.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "chunk_loop.hpp"
#include "engine.hpp"
#include "lowering.hpp"
#include "nccl_lowering.hpp"
#include "source_dir.hpp"

namespace ccforge::sim {
namespace {

const topo::Topology& load(const std::string& name) {
  static std::map<std::string, topo::Topology> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    it = cache.emplace(name, topo::load_topology(std::string(CCFORGE_SOURCE_DIR) + "/data/topologies/" + name)).first;
  }
  return it->second;
}
const topo::Topology& ndv5_x2() { return load("ndv5-x2.xml"); }
const topo::Topology& ndv5_x16() { return load("ndv5-x16.xml"); }

// 64 step-sized chunks per channel on 2 channels (one per tree shape, unfolded).
nccl::NcclCall tree_call(ir::Protocol proto) {
  return {ir::Collective::AllReduce, 2.0 * 64 * static_cast<double>(ir::step_bytes(proto)), proto, 2};
}

const std::string kUp = "tree reduce", kDown = "tree broadcast";

// Per (src, dst, label) connection of a traced tree, its sends' slices by chunk.
using Connections = std::map<std::pair<std::pair<int, int>, std::string>, std::map<int, TraceSlice>>;
Connections connections(const Trace& trace, const std::string& channel) {
  Connections out;
  for (const TraceSlice& s : trace.slices) {
    const std::string& track = trace.track_names[static_cast<std::size_t>(s.track)];
    if (track.find(channel) == std::string::npos) continue;
    const int src = std::stoi(track.substr(5));  // "rank N ..."
    out[{{src, s.peer}, s.name}][s.chunk] = s;
  }
  return out;
}

TEST(NcclTreeSlots, NoSenderRunsMoreThanNcclStepsAheadOfItsReceiver) {
  for (auto proto : {ir::Protocol::Simple, ir::Protocol::LL}) {
    const SimParams params;
    Trace trace;
    Lowering low(ndv5_x16(), params.constants, &trace);
    nccl::lower_tree(low, tree_call(proto), false);
    ASSERT_EQ(low.run().unfinished, 0u);
    const Connections conns = connections(trace, "tree 0 rot");
    std::set<int> reducers;  // ranks that send up (all but the root)
    for (const auto& [key, sends] : conns) {
      if (key.second == kUp) reducers.insert(key.first.first);
    }
    int checked = 0, binding = 0;
    for (const auto& [key, sends] : conns) {
      const auto& [ends, label] = key;
      // The receiver's sends that read this connection's slot: up, its send to its parent (at the
      // root, its sends down); down, its sends to its children (none at a leaf, which frees on arrival).
      const std::string reads = label == kUp && reducers.count(ends.second) != 0 ? kUp : kDown;
      for (const auto& [next, forwards] : conns) {
        if (next.first.first != ends.second || next.second != reads) continue;
        for (const auto& [chunk, send] : sends) {
          const auto freed = forwards.find(chunk - ir::kNcclSteps);
          if (freed == forwards.end()) continue;
          ++checked;
          EXPECT_GE(send.start.ps, freed->second.end.ps) << ir::to_string(proto) << " " << label << " " << ends.first
                                                   << "->" << ends.second << " chunk " << chunk;
          if (send.start == freed->second.end) ++binding;
        }
      }
    }
    EXPECT_GT(checked, 1000) << ir::to_string(proto);
    EXPECT_GT(binding, 0) << ir::to_string(proto) << ": the slot limit never held a sender back";
  }
}

TEST(NcclTreeSlots, TwoNodeTreeProvesAPeriodAndTheClosedFormAgrees) {
  // 2 nodes, all 32 channels (folded), 4 GiB of Simple: 256 chunks per channel.
  const SimParams params;
  const nccl::NcclCall call{ir::Collective::AllReduce, 4.0 * 1024 * 1024 * 1024, ir::Protocol::Simple, 32};
  const std::uint64_t chunks = nccl::tree_chunks(call, ndv5_x2(), params.constants);
  ASSERT_EQ(chunks, 256u);
  const auto lower_and_run = [&](std::uint64_t lowered) {
    Lowering low(ndv5_x2(), params.constants, nullptr);
    nccl::NcclCall cut = call;
    cut.chunks = lowered;
    nccl::lower_tree(low, cut);
    return low.run();
  };
  const EngineStats closed = run_extrapolated(chunks, true, lower_and_run);
  ASSERT_TRUE(closed.period.has_value());
  EXPECT_GE(closed.blocks_extrapolated, chunks / 2);
  const EngineStats full = lower_and_run(nccl::kAllChunks);
  EXPECT_EQ(closed.makespan.ps, full.makespan.ps);
}

SimParams at_version(double version) {
  SimParams params;
  set_param(params, "sim.nccl.version", version, "test");
  return params;
}

// Tree Simple's chunk: NCCL 2.18 and RCCL halve the 512 KiB step while a channel would get fewer than
// depth x 8 / x 4 / x 1 chunks (down to 128 / 64 / 32 KiB); NCCL 2.20+ keeps the step. ndv5-x2: depth
// 7 + 1, 4 MiB over 16 channels: 512 -> 128 KiB (2 chunks < 64), -> 64 KiB (4 < 32), -> 32 KiB (8 = 8).
TEST(NcclTreeChunk, SimpleShrinksWithTheTreeDepthWhereTheRuntimeDoes) {
  const nccl::NcclCall call{ir::Collective::AllReduce, 4.0 * 1024 * 1024, ir::Protocol::Simple, 16};
  const SimParams v218 = at_version(2.18), v226 = at_version(2.26);
  EXPECT_EQ(nccl::tree_chunks(call, ndv5_x2(), v218.constants), 8u);
  EXPECT_EQ(nccl::tree_chunks(call, ndv5_x2(), v226.constants), 1u);
  // RCCL (MI300X) shrinks whatever NCCL version the tables are read at.
  const topo::Topology& mi300x_x2 = load("../../tests/sim/nccl_mi300x_x2.xml");
  EXPECT_EQ(nccl::tree_chunks(call, mi300x_x2, v226.constants), 8u);
  // Large calls keep the step: 1 GiB over 16 channels is 128 steps per channel (>= 64).
  const nccl::NcclCall large{ir::Collective::AllReduce, 1024.0 * 1024 * 1024, ir::Protocol::Simple, 16};
  EXPECT_EQ(nccl::tree_chunks(large, ndv5_x2(), v218.constants), 128u);
  // LL chunks are one step at any size.
  const nccl::NcclCall ll{ir::Collective::AllReduce, 4.0 * 1024 * 1024, ir::Protocol::LL, 16};
  EXPECT_EQ(nccl::tree_chunks(ll, ndv5_x2(), v218.constants), nccl::tree_chunks(ll, ndv5_x2(), v226.constants));
}

// Tree LL128's chunk, in every NCCL version: the 614,400-byte step of lines halves while a channel gets
// fewer than nsteps x 64 / ppn chunks (down to 128 KiB), then nsteps x 16 / ppn (down to 32 KiB), nsteps
// = 1 + log2(nodes) + 0.1 ppn; a line carries 15/16 data. 4 MiB over 16 channels is 256 KiB per channel.
// ndv5-x2 (nsteps 2.8: 22.4, 5.6): 614,400 -> 76,800 (1 whole chunk), -> 38,400 (6 >= 5.6): 36,000 B of
// data, 8 chunks. ndv5-x16 (nsteps 5.8: 46.4, 11.6): on to 19,200 (13 >= 11.6): 18,000 B, 15 chunks.
TEST(NcclTreeChunk, LL128ShrinksWithTheNodeCountInEveryVersion) {
  const nccl::NcclCall call{ir::Collective::AllReduce, 4.0 * 1024 * 1024, ir::Protocol::LL128, 16};
  const SimParams v218 = at_version(2.18), v226 = at_version(2.26);
  EXPECT_EQ(nccl::tree_chunks(call, ndv5_x2(), v218.constants), 8u);
  EXPECT_EQ(nccl::tree_chunks(call, ndv5_x2(), v226.constants), 8u);
  EXPECT_EQ(nccl::tree_chunks(call, load("ndv5-x16.xml"), v226.constants), 15u);
  // 1 GiB over 16 channels: 109 whole steps per channel, no halving: 576,000 B of data, 117 chunks.
  const nccl::NcclCall large{ir::Collective::AllReduce, 1024.0 * 1024 * 1024, ir::Protocol::LL128, 16};
  EXPECT_EQ(nccl::tree_chunks(large, ndv5_x2(), v218.constants), 117u);
  // Up to 2.19 the count is taken in line bytes, from 2.20 in data bytes: 211,968,000 B over 16 channels
  // is 21 whole 614,400-byte steps (< 22.4: halve, 46 chunks of 288,000 B) but 23 of 576,000 (kept: 23).
  const nccl::NcclCall edge{ir::Collective::AllReduce, 211968000.0, ir::Protocol::LL128, 16};
  EXPECT_EQ(nccl::tree_chunks(edge, ndv5_x2(), v218.constants), 46u);
  EXPECT_EQ(nccl::tree_chunks(edge, ndv5_x2(), v226.constants), 23u);
}

// Broadcast and reduce chains move one step (512 KiB of Simple) per chunk (NCCL's BROADCAST_/REDUCE_
// CHUNKSTEPS 1), not the ring's 4-step chunk; RCCL halves it while a channel gets fewer than 64 / 32 /
// 16 / 8 chunks. 64 MiB over 16 channels: NCCL 8 chunks; RCCL 256 KiB (16 < 64), then 128 KiB (32).
TEST(NcclChainChunk, BroadcastAndReduceMoveOneStepPerChunk) {
  const double bytes = 64.0 * 1024 * 1024;
  for (ir::Collective coll : {ir::Collective::Broadcast, ir::Collective::Reduce}) {
    const nccl::NcclCall call{coll, bytes, ir::Protocol::Simple, 16};
    EXPECT_EQ(nccl::ring_chunks(call, load("ndv5.xml")), 8u) << ir::to_string(coll);
    EXPECT_EQ(nccl::ring_chunks(call, load("mi300x.xml")), 32u) << ir::to_string(coll);
  }
  // Allreduce keeps 4-step chunks of each rank's share: 64 MiB / 8 ranks / 16 channels = one 2 MiB chunk.
  EXPECT_EQ(nccl::ring_chunks(nccl::NcclCall{ir::Collective::AllReduce, bytes, ir::Protocol::Simple, 16}, load("ndv5.xml")), 1u);
}

}  // namespace
}  // namespace ccforge::sim
