// The steps of an MSCCL algorithm as the time floor (time_floor.cpp) costs them: per threadblock its
// steps, each with the part every tile iteration pays again (a send's alpha and forwarding turnaround)
// and the part proportional to the bytes it moves, read from the same costs the lowering
// (msccl_lowering.cpp) gives the engine; and the bounds that need no dependency graph: the most loaded
// link's capacity and a tb's own chain of steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ccforge/common/params.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/topology/topology.hpp"
#include "costs.hpp"

namespace ccforge::sim {

enum class FloorWork { None, Transfer, Copy, Reduce };

// What a step costs once it may start.
struct StepCost {
  FloorWork work = FloorWork::None;
  double fixed_s = 0.0;
  double rate = 0.0;  // Transfer: the most wire bytes/s its flow can get
};

struct FloorStep {
  int rank, tb, step;
  ir::OpType type;
  double count;  // chunks the step moves per tile
  StepCost cost;
};

class FloorSteps {
 public:
  FloorSteps(const topo::Topology& topo, const ir::Algorithm& algo, const SimConstants& params);

  // Per tb (ranks, then tbs, by position: the checker ties rank and tb ids to them), its steps.
  const std::vector<std::vector<FloorStep>>& chains() const { return chains_; }
  const ir::Algorithm& algorithm() const { return algo_; }
  const MscclRuntimeCosts& runtime() const { return runtime_; }

  // Seconds of a step's byte-proportional part for `chunk_bytes` of each of its chunks: local work as
  // costs.cpp charges it, a transfer's wire bytes at its ceiling rate.
  double work_seconds(const FloorStep& e, double chunk_bytes) const;
  // The capacity bound per chunk byte: wire bytes of the most loaded link (or GPU issue rate) over its
  // capacity.
  double capacity_s_per_byte() const { return capacity_s_per_byte_; }
  // Tb `t`'s steps over `iterations` tiles holding `bytes` per chunk in all: alphas per iteration,
  // local work as costs.cpp charges it per iteration (one charge for the sum is never more).
  double own_chain(std::size_t t, double iterations, double bytes) const;

  // A tb's share of a resource (a link, or a GPU's LL issue rate): seconds its transfers hold the
  // resource per chunk byte, at the resource's full capacity.
  struct ResourceUse {
    std::uint32_t tb;
    double s_per_byte;
  };
  // Resources are the topology's links, then one issue rate per GPU; those nothing loads have no users.
  std::size_t resources() const { return use_first_.size() - 1; }
  std::span<const ResourceUse> users(std::size_t resource) const {
    return {uses_.data() + use_first_[resource], uses_.data() + use_first_[resource + 1]};
  }
  // Per tb, the index of its first sending step; -1 when it sends nothing.
  int first_send(std::size_t t) const { return first_send_[t]; }

 private:
  bool valid_peer(int rank, int peer) const { return peer >= 0 && peer < algo_.ngpus && peer != rank; }
  double link_rate(const topo::Route& route) const;
  void cost_steps();
  double capacity_bound(double total) const;
  void sum_chains();
  void collect_resource_uses();

  // Per tb, what its steps cost over the whole call: alphas per iteration, transfer seconds per chunk
  // byte at their ceiling rates, chunks copied and reduced.
  struct ChainSums {
    double fixed_s = 0.0, transfer_s_per_byte = 0.0, copy_chunks = 0.0, reduce_chunks = 0.0;
  };

  const topo::Topology& topo_;
  const ir::Algorithm& algo_;
  Bandwidth hbm_;  // sim.hbm_bw.<arch>, for local copies and reductions
  ProtocolCosts costs_;
  MscclRuntimeCosts runtime_;
  std::vector<double> capacity_;  // per topology link, as Lowering::run gives the engine
  std::vector<std::vector<FloorStep>> chains_;
  double capacity_s_per_byte_ = 0.0;
  std::vector<ChainSums> sums_;  // per tb
  std::vector<ResourceUse> uses_;  // grouped by resource: uses_[use_first_[r] .. use_first_[r + 1])
  std::vector<std::size_t> use_first_;
  std::vector<int> first_send_;  // per tb
};

}  // namespace ccforge::sim
