// The lower bound with the simulator's parameters is a true bound of the model: nothing the simulator
// runs beats it, neither NCCL (every algorithm and protocol it can run, NVLS and NVLS-tree included) on
// several topologies and sizes, nor any tuner candidate. And it is tight where the fabric binds: at
// 256 MB-1 GB on NDv5 the fastest simulated allreduce (NVLS) and allgather reach at least 90% of it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

using C = ir::Collective;
constexpr ByteCount KiB = 1024, MiB = KiB * 1024;

topo::Topology load(const char* file) {
  return topo::load_topology(std::filesystem::path(CCFORGE_SOURCE_DIR) / "data/topologies" / file);
}

const sim::SimParams& params() {
  static const sim::SimParams p;
  return p;
}

sim::CallSpec call(ByteCount bytes) { return {bytes, DataType::Half}; }

SimTime bound(const topo::Topology& t, C coll, ByteCount bytes) {
  const sim::Model model = sim::build_model(t, params());
  return lower_bound(t, coll, bytes, &model).total();
}

// Every NCCL algorithm x protocol the simulator accepts for `coll` on `t`, fastest first is not needed:
// each one is checked.
std::vector<std::pair<std::string, SimTime>> nccl_times(const topo::Topology& t, C coll, ByteCount bytes) {
  std::vector<std::pair<std::string, SimTime>> times;
  for (const char* algo : {"ring", "tree", "nvls", "nvlstree", "pat", "p2p", "allpairs"})
    for (const char* proto : {"ll", "ll128", "simple"}) {
      const std::string name = fmt::format("nccl:{}:{}", algo, proto);
      try {
        times.emplace_back(name, sim::simulate_nccl(t, coll, call(bytes), *sim::parse_nccl_request(name), params()).time);
      } catch (const DiagError&) {
        // NCCL cannot run this combination here (e.g. NVLS without NVSwitch, tree for allgather)
      }
    }
  return times;
}

TEST(SearchLowerBoundModel, NoNcclAlgorithmBeatsTheBound) {
  for (const char* file :
       {"ndv5.xml", "ndv4.xml", "ndv4-degraded.xml", "dgx1-v100.xml", "mi300x.xml", "pcie-4gpu.xml", "ndv5-x2.xml"}) {
    const topo::Topology t = load(file);
    for (C coll : {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll, C::Broadcast, C::Reduce}) {
      int simulated = 0;
      for (ByteCount bytes : {4 * KiB, 1 * MiB, 64 * MiB, 1024 * MiB}) {
        const SimTime lb = bound(t, coll, bytes);
        for (const auto& [name, time] : nccl_times(t, coll, bytes)) {
          ++simulated;
          EXPECT_GE(time, lb) << file << " " << ir::to_string(coll) << " " << bytes << " B " << name << ": " << time.us()
                              << " us < bound " << lb.us() << " us";
        }
      }
      EXPECT_GT(simulated, 0) << file << " " << ir::to_string(coll);
    }
  }
}

TEST(SearchLowerBoundModel, NoCandidateBeatsTheBound) {
  // ndv4-degraded: rank 5 has 8 of 12 NVLinks, and tree packing makes it a leaf, so it moves only its
  // own share; 256 MB is where those trees win.
  for (const char* file : {"ndv5.xml", "dgx1-v100.xml", "ndv4-degraded.xml"}) {
    const topo::Topology t = load(file);
    for (C coll : {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll}) {
      const CandidateSet set = enumerate_candidates(t, coll);
      std::vector<ByteCount> sizes{8 * KiB, 3 * MiB};
      if (std::string(file) == "ndv4-degraded.xml" && coll == C::AllReduce) sizes.push_back(256 * MiB);
      for (ByteCount bytes : sizes) {
        const SimTime lb = bound(t, coll, bytes);
        for (const Candidate& c : set.accepted) {
          try {
            const SimTime time = sim::simulate(t, c.algorithm, call(bytes), params()).time;
            EXPECT_GE(time, lb) << file << " " << c.name << " " << bytes << " B: " << time.us() << " us < bound " << lb.us() << " us";
          } catch (const DiagError&) {
            // the size does not split into this candidate's chunks
          }
        }
      }
    }
  }
}

TEST(SearchLowerBoundModel, TightWhereTheFabricBinds) {
  const topo::Topology t = load("ndv5.xml");
  for (C coll : {C::AllReduce, C::AllGather})
    for (ByteCount bytes = 256 * MiB; bytes <= 1024 * MiB; bytes *= 2) {
      SimTime best = SimTime::max();
      for (const auto& [name, time] : nccl_times(t, coll, bytes)) best = std::min(best, time);
      const double pct = 100.0 * bound(t, coll, bytes).us() / best.us();
      fmt::print("ndv5 {} {} MB: bound {:.1f} us, fastest NCCL {:.1f} us ({:.1f}% of bound)\n", ir::to_string(coll),
                 bytes / MiB, bound(t, coll, bytes).us(), best.us(), pct);
      EXPECT_GE(pct, 90.0) << ir::to_string(coll) << " " << bytes / MiB << " MB";
    }
}

}  // namespace
}  // namespace ccforge::search
