#include "engine.hpp"

#include <algorithm>

#include "ccforge/sim/sim.hpp"
#include "event_queue.hpp"
#include "flow_network.hpp"
#include "twin_links.hpp"

namespace ccforge::sim {
namespace {

enum class EventKind : std::uint8_t { DelayOver, FlowDone };

struct EventPayload {
  EventKind kind;
  TaskId task;
  std::uint32_t generation;
};

class Engine {
 public:
  Engine(const TaskGraph& graph, const EngineLinks& links, Trace* trace)
      : graph_(graph),
        trace_(trace),
        pending_(graph.predecessor_counts()),
        ready_at_(graph.size()),
        network_(links.capacity, graph.size(), [this](std::uint32_t flow, SimTime finish, std::uint32_t gen) {
          queue_.schedule(flow, finish, EventPayload{EventKind::FlowDone, flow, gen});
        }),
        detector_(graph, pending_, ready_at_, network_) {
    if (trace_ != nullptr) {
      network_.set_trace(trace_, links.trace_tracks);
    } else {  // a trace draws every link's load
      network_.set_twins(twin_standing_for(graph.paths(), links.capacity));
    }
  }

  EngineStats run() {
    for (TaskId t = 0; t < graph_.size(); ++t) {
      if (pending_[t] == 0) make_ready(t, SimTime{0});
    }
    SimTime now{0};
    for (;;) {
      // Between instants: re-solve what this instant's starts and ends touched, once.
      if (queue_.empty() || queue_.next_time() > now) {
        network_.settle(now);
        detector_.at_quiet_point(now);
        if (queue_.empty()) break;
        if (detector_.hopeless()) {
          stats_.abandoned = true;
          break;
        }
      }
      const auto event = queue_.pop();
      now = event.key.time;
      const EventPayload& p = event.payload;
      if (p.kind == EventKind::DelayOver) {
        ++stats_.events;
        start_transfer(p.task, now);
      } else if (network_.finish(p.task, p.generation)) {
        ++stats_.events;  // a prediction left stale by a zero rate is not counted
        complete(p.task, now);
      }
    }
    stats_.period = detector_.period();
    stats_.widening = !stats_.period && detector_.widening();
    if (stats_.abandoned) return stats_;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      if (pending_[t] != kDone) {
        if (stats_.unfinished == 0) stats_.first_unfinished = t;
        ++stats_.unfinished;
      }
    }
    return stats_;
  }

 private:
  static constexpr std::uint32_t kDone = PeriodDetector::kDone;

  void make_ready(TaskId t, SimTime now) {
    ready_at_[t] = now;
    detector_.on_ready(t);
    queue_.push(now + graph_.task(t).delay, EventPayload{EventKind::DelayOver, t, 0});
  }

  void start_transfer(TaskId t, SimTime now) {
    const Task& task = graph_.task(t);
    if (task.path == kNoPath || task.wire_bytes <= 0.0) {
      complete(t, now);
      return;
    }
    ++stats_.transfers;
    network_.start(t, graph_.paths()[task.path], task.wire_bytes, task.rate_cap, task.weight, now);
  }

  void complete(TaskId t, SimTime now) {
    pending_[t] = kDone;
    detector_.on_done(t);
    stats_.makespan = std::max(stats_.makespan, now);
    const Task& task = graph_.task(t);
    if (trace_ != nullptr && task.track >= 0) {
      const TaskArgs args = graph_.args(t);
      trace_->slices.push_back(
          TraceSlice{task.track, graph_.labels()[task.label], ready_at_[t], now, task.wire_bytes, args.peer, args.chunk});
    }
    if (trace_ != nullptr) trace_->device_end = std::max(trace_->device_end, now);
    graph_.for_each_successor(t, [&](TaskId s) {
      if (--pending_[s] == 0) make_ready(s, now);
    });
  }

  const TaskGraph& graph_;
  Trace* trace_;
  std::vector<std::uint32_t> pending_;
  std::vector<SimTime> ready_at_;
  EventQueue<EventPayload> queue_;
  FlowNetwork network_;
  PeriodDetector detector_;
  EngineStats stats_;
};

}  // namespace

EngineStats run_task_graph(TaskGraph& graph, const EngineLinks& links, Trace* trace) {
  graph.seal();
  return Engine(graph, links, trace).run();
}

EngineStats run_extrapolated(std::uint64_t blocks, bool extrapolate, const std::function<EngineStats(std::uint64_t)>& run) {
  // A first try long enough for the pipelines seen in practice (a few iterations in flight, one to
  // settle); each retry quadruples it, so a late period costs at most ~1.3x the successful try.
  constexpr std::uint64_t kFirstTry = 8;
  if (extrapolate) {
    for (std::uint64_t n = kFirstTry; n < blocks; n *= 4) {
      EngineStats s = run(n);
      if (s.unfinished > 0) break;  // a deadlock: report it as the full run sees it
      if (s.widening) break;        // longer tries would fail too
      if (!s.period) continue;
      // A period of p blocks extrapolates whole periods only: run as many more blocks as that needs (the
      // same prefix, so the same period, unless the last block now starts before it is proven).
      const std::uint64_t rest = (blocks - n) % s.period->blocks;
      if (rest != 0) {
        s = run(n + rest);
        if (n + rest == blocks) return s;  // that is the full run
      }
      if (!s.period || (blocks - n - rest) % s.period->blocks != 0) break;
      s.blocks_extrapolated = blocks - n - rest;
      s.makespan += s.period->length * static_cast<std::int64_t>(s.blocks_extrapolated / s.period->blocks);
      return s;
    }
  }
  return run(blocks);
}

}  // namespace ccforge::sim
