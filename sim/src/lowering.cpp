#include "lowering.hpp"

#include <algorithm>

#include "net/transport_costs.hpp"

namespace ccforge::sim {

Lowering::Lowering(const topo::Topology& topo, const SimConstants& params, Trace* trace)
    : topo_(topo),
      params_(params),
      trace_(trace),
      issue_by_gpu_(static_cast<std::size_t>(topo.num_gpus()), kNoPath) {}

std::uint32_t Lowering::issue_resource(int gpu, double capacity) {
  std::uint32_t& id = issue_by_gpu_[gpu];
  if (id == kNoPath) {
    id = static_cast<std::uint32_t>(topo_.links().size() + extra_capacity_.size());
    extra_capacity_.push_back(capacity);
    extra_names_.push_back("rank " + std::to_string(gpu) + " protocol issue rate");
  }
  return id;
}

// One protocol per lowering, so the cache need not be keyed by it.
PathId Lowering::route_path(int src, int dst, const ProtocolCosts& costs) {
  const auto [it, inserted] =
      route_paths_.try_emplace(static_cast<std::uint64_t>(src) * static_cast<std::uint64_t>(topo_.num_gpus()) + dst, kNoPath);
  if (inserted) it->second = graph_.add_path(transfer_resources(src, dst, costs));
  return it->second;
}

std::vector<std::uint32_t> Lowering::transfer_resources(int src, int dst, const ProtocolCosts& costs) {
  const topo::Route& r = topo_.route(src, dst);
  std::vector<std::uint32_t> links;
  links.reserve(r.links.size() + 1);
  for (LinkId l : r.links) links.push_back(l.v);
  if (costs.gpu_bytes_per_s > 0.0) links.push_back(issue_resource(src, costs.gpu_bytes_per_s));
  return links;
}

double Lowering::send_rate_cap(int src, int dst, double wire_bytes, const ProtocolCosts& costs) const {
  return std::min(costs.tb_bytes_per_s, net::connection_bytes_per_s(topo_, params_, topo_.route(src, dst), wire_bytes));
}

Task Lowering::transfer_task(int src, int dst, double payload, const ProtocolCosts& costs, int track,
                             std::uint32_t label) {
  Task t;
  t.wire_bytes = payload / costs.wire_efficiency;
  t.rate_cap = send_rate_cap(src, dst, t.wire_bytes, costs);
  t.path = route_path(src, dst, costs);
  t.track = track;
  t.label = label;
  return t;
}

TaskId Lowering::add_transfer(int src, int dst, double payload, const ProtocolCosts& costs, int track,
                              std::uint32_t label, bool with_sync, double weight) {
  Task t = transfer_task(src, dst, payload, costs, track, label);
  t.delay = transfer_alpha(costs, topo_.route(src, dst), with_sync);
  t.weight = weight;
  const TaskId id = graph_.add(t);
  if (trace_ != nullptr) graph_.set_peer(id, dst);
  return id;
}

Lowering::StreamedTransfer Lowering::add_streamed_transfer(int src, int dst, double payload, const ProtocolCosts& costs,
                                                           SimTime turnaround, int track, std::uint32_t label) {
  const TaskId head = add_local(turnaround + transfer_alpha(costs, topo_.route(src, dst)), track, label);
  const TaskId flow = graph_.add(transfer_task(src, dst, payload, costs, track, label));
  graph_.depend(head, flow);
  if (trace_ != nullptr) graph_.set_peer(head, dst), graph_.set_peer(flow, dst);
  return {head, flow};
}

TaskId Lowering::add_fabric_op(PathId path, double wire_bytes, double rate_cap, SimTime delay, int track,
                               std::uint32_t label, double weight) {
  Task t;
  t.delay = delay;
  t.wire_bytes = wire_bytes;
  t.rate_cap = rate_cap;
  t.path = path;
  t.weight = weight;
  t.track = track;
  t.label = label;
  return graph_.add(t);
}

TaskId Lowering::add_local(SimTime duration, int track, std::uint32_t label) {
  Task t;
  t.delay = duration;
  t.track = track;
  t.label = label;
  return graph_.add(t);
}

PathId Lowering::add_path(std::vector<std::uint32_t> links) {
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return graph_.add_path(std::move(links));
}

int Lowering::track(const std::string& name) {
  if (trace_ == nullptr) return -1;
  auto [it, inserted] = tracks_by_name_.try_emplace(name, -1);
  if (inserted) it->second = trace_->add_track(name);
  return it->second;
}

EngineStats Lowering::run() {
  EngineLinks links;
  const auto& topo_links = topo_.links();
  links.capacity = link_capacities(topo_, params_);
  links.capacity.insert(links.capacity.end(), extra_capacity_.begin(), extra_capacity_.end());
  if (trace_ != nullptr) {
    links.trace_tracks.reserve(links.capacity.size());
    for (const topo::Link& l : topo_links) {
      links.trace_tracks.push_back(trace_->add_track("link " + topo_.vertex(l.src).name + " -> " +
                                                     topo_.vertex(l.dst).name + " (" + l.detail + ")"));
    }
    for (const std::string& name : extra_names_) links.trace_tracks.push_back(trace_->add_track(name));
  }
  return run_task_graph(graph_, links, trace_);
}

}  // namespace ccforge::sim
