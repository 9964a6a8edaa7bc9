// The order constraint between successive sends of one threadblock on one connection (one peer).
// Over NVLink or PCIe the threadblock stores the data into the peer itself, so a send starts when the
// previous one has landed. Over the network it only fills a slot of the connection's FIFO and the
// proxy and NIC carry it on: a send waits for the slot it reuses, ir::kNcclSteps sends back
// (prims_simple.h / prims_ll.h wait on the peer's head), not for the network latency of the previous one.
#pragma once

#include <vector>

#include "ccforge/ir/ir.hpp"
#include "lowering.hpp"

namespace ccforge::sim::nccl {

class SendOrder {
 public:
  // `steps_per_send`: FIFO slots one send occupies (a Simple ring slice spans 2 steps).
  explicit SendOrder(int steps_per_send = 1) : slots_(std::max(1, ir::kNcclSteps / steps_per_send)) {}

  // Makes `t`, the next send on this connection, wait for the earlier send it must follow.
  void chain(TaskGraph& graph, TaskId t, bool over_network) {
    const std::size_t n = sent_.size();
    if (over_network) {
      if (n >= static_cast<std::size_t>(slots_)) graph.depend(sent_[n - slots_], t);
    } else if (n > 0) {
      graph.depend(sent_.back(), t);
    }
    sent_.push_back(t);
  }

 private:
  int slots_;
  std::vector<TaskId> sent_;
};

// True when a send from `src` to `dst` crosses the network (goes through the CPU proxy and a NIC).
inline bool crosses_network(const topo::Topology& topo, int src, int dst) {
  return topo.route(src, dst).path_class == topo::PathClass::Net;
}

}  // namespace ccforge::sim::nccl
