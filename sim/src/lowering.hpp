// Shared helpers for turning an algorithm (MSCCL or NCCL's) into a TaskGraph on one topology: route
// paths cached per GPU pair, transfer tasks with their alpha and caps, trace tracks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ccforge/sim/sim.hpp"
#include "costs.hpp"
#include "engine.hpp"
#include "task_graph.hpp"

namespace ccforge::sim {

class Lowering {
 public:
  Lowering(const topo::Topology& topo, const SimConstants& params, Trace* trace);

  const topo::Topology& topo() const { return topo_; }
  const SimConstants& params() const { return params_; }
  topo::GpuArch arch() const { return topo_.gpu(0).model->arch; }
  TaskGraph& graph() { return graph_; }
  Trace* trace() { return trace_; }

  // A point-to-point transfer of `payload` bytes with the protocol's alpha, wire overhead and cap.
  // `with_sync` false: a later slice of a pipelined step, whose handshake the first slice already paid.
  TaskId add_transfer(int src, int dst, double payload, const ProtocolCosts& costs, int track, std::uint32_t label,
                      bool with_sync = true, double weight = 1.0);
  // The same transfer split where its first byte reaches `dst`: `head` pays the alpha, `flow` (after
  // it) moves the bytes. A forwarding receiver may start on `head` (LL/LL128 pass on each line as it
  // arrives) instead of waiting for `flow` to end.
  struct StreamedTransfer {
    TaskId head;
    TaskId flow;
  };
  // `turnaround`: extra time before the first byte leaves (a forwarding receiver seeing its line land).
  StreamedTransfer add_streamed_transfer(int src, int dst, double payload, const ProtocolCosts& costs, SimTime turnaround,
                                         int track, std::uint32_t label);
  // The rate cap of a send of `wire_bytes` from `src` to `dst`: the protocol's threadblock rate, and across
  // the network the rails of its NIC the connection is bound to (net::connection_bytes_per_s).
  double send_rate_cap(int src, int dst, double wire_bytes, const ProtocolCosts& costs) const;
  // A task carried by a path that is the union of several routes (NVLS: one reduce or multicast
  // operation loads every GPU's switch port once).
  TaskId add_fabric_op(PathId path, double wire_bytes, double rate_cap, SimTime delay, int track, std::uint32_t label,
                       double weight = 1.0);
  // The chunk task `t` moves, for its trace slice (nothing when not tracing).
  void set_chunk(TaskId t, int chunk) {
    if (trace_ != nullptr) graph_.set_chunk(t, chunk);
  }
  // Local work (copy, reduce, nop or a pure barrier) of fixed duration.
  TaskId add_local(SimTime duration, int track, std::uint32_t label);

  // A path over these links, each counted once.
  PathId add_path(std::vector<std::uint32_t> links);
  // What a transfer from `src` to `dst` loads: its route's links, then, where the protocol caps what a
  // whole GPU issues, `src`'s issue rate: a resource past the topology's links (extra_capacity()).
  std::vector<std::uint32_t> transfer_resources(int src, int dst, const ProtocolCosts& costs);
  // Capacities of the resources past the topology's links, by id - links().size().
  const std::vector<double>& extra_capacity() const { return extra_capacity_; }

  // Track id for a threadblock (created on first use), -1 when not tracing.
  int track(const std::string& name);

  EngineStats run();

 private:
  PathId route_path(int src, int dst, const ProtocolCosts& costs);
  // A transfer's flow part (no alpha): bytes on the wire, the threadblock cap, the route.
  Task transfer_task(int src, int dst, double payload, const ProtocolCosts& costs, int track, std::uint32_t label);
  std::uint32_t issue_resource(int gpu, double capacity);

  const topo::Topology& topo_;
  const SimConstants& params_;
  Trace* trace_;
  TaskGraph graph_;
  // Paths of the pairs used so far, keyed src * ngpus + dst: a dense table of every pair was 1 GiB at
  // 16,384 GPUs, whose simulations use a few pairs per GPU.
  std::unordered_map<std::uint64_t, PathId> route_paths_;
  // Constraints beyond the topology's links (a GPU's protocol issue rate), indexed after them.
  std::vector<double> extra_capacity_;
  std::vector<std::string> extra_names_;
  std::vector<std::uint32_t> issue_by_gpu_;  // kNoPath until first use
  std::map<std::string, int> tracks_by_name_;
};

}  // namespace ccforge::sim
