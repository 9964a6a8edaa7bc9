// Lowers an MSCCL algorithm to tasks exactly as msccl-executor-nccl runs it (formats.md §1.4, §1.7):
// the buffer is cut into nchunksperloop chunks, each tb program is re-run once per tile of a chunk,
// and every iteration is wired along ir::StepGraph (steps of a tb in order, cross-tb deps within the
// same iteration, the k-th send on a (src, dst, channel) connection feeding the k-th receive), plus a
// send waiting for a free buffer slot.
#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "ccforge/ir/executor_facts.hpp"
#include "ccforge/ir/step_graph.hpp"
#include "ccforge/sim/sim.hpp"
#include "lowering.hpp"
#include "msccl_lowering.hpp"

namespace ccforge::sim {
namespace {

// Simple's tile passes through the connection as ir::steps_per_tile buffer slots that a forwarding
// step passes on one by one, so the lowering iterates per slot (ir::step_bytes) to keep that
// pipelining; LL and LL128 tiles are one slot. A send holds the slots of its primitive calls until its
// receiver has consumed them (msccl_send_slots).

// A step's tasks: `entry` waits for what the step waits for, `exit` ends it. `head` (a sending step of
// an LL/LL128 algorithm, else kNoTask) is when its first line reaches the peer, so that a forwarding
// receiver can start on it.
inline constexpr TaskId kNoTask = std::numeric_limits<TaskId>::max();
struct StepTasks {
  TaskId entry, exit, head = kNoTask;
};
// What a connection's earlier iterations left for back-pressure: the receives not yet known to have
// freed enough slots for the next send, oldest first, with the slots each holds.
struct SlotsInUse {
  struct Held {
    TaskId freed_by;  // the receive's exit
    int slots;
    bool operator==(const Held&) const = default;
  };
  std::vector<Held> held;
  int total = 0;
  bool operator==(const SlotsInUse&) const = default;
};

}  // namespace

void check_gpu_count(const topo::Topology& topo, const ir::Algorithm& algo) {
  if (algo.ngpus != topo.num_gpus() || static_cast<int>(algo.gpus.size()) != algo.ngpus) {
    fail_at(algo.source_file.empty() ? algo.name : algo.source_file, 1,
         fmt::format("algorithm is for {} GPUs but topology {} has {}", algo.ngpus, topo.name(), topo.num_gpus()),
         fmt::format("use an algorithm with ngpus=\"{}\"", topo.num_gpus()));
  }
}

namespace {

// Why the call's size does not split into the algorithm's chunks; nullopt when it does. Whole elements
// per chunk of the executor's nBytes (ir::executor_bytes: size / ngpus for gather and scatter, whose
// nccl-tests size is the total over ranks but whose sizeMultiplier is 1).
std::optional<Diag> size_misfit(const ir::Algorithm& algo, const CallSpec& call) {
  const ByteCount unit = static_cast<ByteCount>(size_of(call.dtype)) * algo.nchunksperloop *
                         ir::ranks_in_size(algo.collective, algo.ngpus) / ir::size_multiplier(algo.collective, algo.ngpus);
  if (call.bytes != 0 && call.bytes % unit == 0) return std::nullopt;
  return Diag({algo.source_file.empty() ? algo.name : algo.source_file, 1},
              fmt::format("size {} B does not split into nchunksperloop={} chunks of whole {} elements", call.bytes,
                          algo.nchunksperloop, to_string(call.dtype)),
              fmt::format("use a multiple of {} B", unit));
}

class MscclLowering {
 public:
  MscclLowering(Lowering& low, const ir::Algorithm& algo, const ir::StepGraph& steps)
      : low_(low), algo_(algo), steps_(steps), in_use_(steps.connections().size()) {
    const ir::Runtime kernel = msccl_runtime(low.topo());
    costs_ = msccl_protocol_costs(low.params(), algo.protocol, low.topo(), kernel);
    // An alltoall file's sends to every NVLink peer of one node meet the fabric's all-to-all share, as
    // NCCL's p2p alltoall does (p2p.cpp); a protocol's own GPU issue cap stays where lower.
    const double nvlink_cap = alltoall_nvlink_cap(low.params(), low.topo()) / costs_.wire_efficiency;
    if (algo.collective == ir::Collective::AllToAll && low.topo().num_nodes() == 1 && nvlink_cap > 0.0)
      costs_.gpu_bytes_per_s = costs_.gpu_bytes_per_s > 0.0 ? std::min(costs_.gpu_bytes_per_s, nvlink_cap) : nvlink_cap;
    runtime_ = msccl_runtime_costs(low.params(), kernel);
    for (int t = 0; t <= static_cast<int>(ir::OpType::Nop); ++t) {
      labels_[t] = low.graph().add_label(ir::to_string(static_cast<ir::OpType>(t)));
    }
    flag_label_ = low.graph().add_label("flag wait");
  }

  static ByteCount iterations(ByteCount chunk_bytes, ir::Protocol proto) {
    const ByteCount tile = msccl_iteration_bytes(proto);
    return (chunk_bytes + tile - 1) / tile;
  }

  // The executor's loop over tiles. As a loop (TaskGraph::fold_into_loop), when `as_loop` and the
  // state one iteration hands the next repeats (then every later iteration adds the same tasks and
  // edges): that takes a few iterations, however many the call has. Otherwise every iteration.
  enum class Lowered { Loop, Every, Failed };
  Lowered lower(ByteCount chunk_bytes, bool as_loop) {
    chunk_bytes_ = chunk_bytes;
    const ByteCount iters = iterations(chunk_bytes, algo_.protocol);
    const ByteCount tile = msccl_iteration_bytes(algo_.protocol);
    const ByteCount last_tile = chunk_bytes - (iters - 1) * tile;
    std::vector<TaskId> last_of_tb;  // per (rank, tb), last task of the previous iteration
    std::vector<SlotsInUse> handed, handed_before;
    for (ByteCount it = 0; it + 1 < iters; ++it) {
      lower_iteration(static_cast<double>(tile), last_of_tb);
      if (!as_loop) continue;
      handed = slots_handed_on(static_cast<TaskId>(low_.graph().size()));
      if (it > 0 && handed == handed_before) {
        lower_iteration(static_cast<double>(last_tile), last_of_tb);
        const auto lowered = static_cast<std::uint32_t>(it + 2);
        return low_.graph().fold_into_loop(lowered, static_cast<std::uint32_t>(iters)) ? Lowered::Loop : Lowered::Failed;
      }
      if (it + 1 >= kMaxIterationsToRepeat) as_loop = false;
      std::swap(handed, handed_before);
    }
    lower_iteration(static_cast<double>(last_tile), last_of_tb);
    return Lowered::Every;
  }

  // Every iteration adds the same tasks in the same order (only bytes differ), so the first one's steps
  // name them all.
  ir::StepRef step_of(TaskId t) const { return step_refs_[t % step_refs_.size()]; }

 private:
  void lower_iteration(double iteration_bytes, std::vector<TaskId>& last_of_tb) {
    // First pass: a task per step, serial within a tb, in the step graph's node order.
    std::vector<StepTasks> task;
    task.reserve(static_cast<std::size_t>(steps_.size()));
    std::size_t flat = 0;
    const bool first = last_of_tb.empty();
    for (const ir::GpuProgram& gpu : algo_.gpus) {
      for (const ir::ThreadBlock& tb : gpu.tbs) {
        // Named only when tracing: formatting it per tb and iteration was a visible share of a tune.
        const int track = low_.trace() == nullptr
                              ? -1
                              : low_.track(fmt::format("rank {} tb {} (send {} recv {} ch {})", gpu.rank, tb.id,
                                                       tb.send_peer, tb.recv_peer, tb.channel));
        for (std::size_t s = 0; s < tb.steps.size(); ++s) {
          const StepTasks t = add_step(gpu.rank, tb, tb.steps[s], iteration_bytes, track);
          if (first) step_refs_.resize(low_.graph().size(), ir::StepRef{gpu.rank, tb.id, static_cast<int>(s)});
          if (s > 0)
            low_.graph().depend(task.back().exit, t.entry);
          else if (!first)
            low_.graph().depend(last_of_tb[flat], t.entry);
          task.push_back(t);
        }
        if (first) last_of_tb.push_back(0);
        if (!tb.steps.empty()) last_of_tb[flat] = task.back().exit;
        ++flat;
      }
    }
    // Second pass: cross-tb deps, then send -> receive pairs.
    for (int n = 0; n < steps_.size(); ++n) {
      const int dependee = steps_.dependee(n);
      if (dependee == -1) continue;
      const ir::StepRef at = steps_.ref(n);
      if (dependee == ir::StepGraph::kMissing) {
        const ir::Step& step = steps_.step(n);
        fail_at(algo_.source_file, step.line,
             fmt::format("rank {} tb {} step {} depends on missing tb {} step {}", at.rank, at.tb, at.step, step.dep_tb,
                         step.dep_step),
             "point depid/deps at an existing step");
      }
      const TaskId handoff = low_.add_local(runtime_.dep_handoff, -1, flag_label_);
      if (first) step_refs_.resize(low_.graph().size(), at);
      low_.graph().depend(task[static_cast<std::size_t>(dependee)].exit, handoff);
      low_.graph().depend(handoff, task[static_cast<std::size_t>(n)].entry);
    }
    pair_connections(task);
    add_back_pressure(task);
  }

  StepTasks add_step(int rank, const ir::ThreadBlock& tb, const ir::Step& step, double iteration_bytes, int track) {
    const double bytes = iteration_bytes * std::max(step.count, 0);
    const std::uint32_t label = labels_[static_cast<int>(step.type)];
    const topo::GpuArch arch = low_.arch();
    if (ir::op_sends(step.type)) {
      if (tb.send_peer < 0 || tb.send_peer >= algo_.ngpus || tb.send_peer == rank) {
        fail_at(algo_.source_file, step.line ? step.line : tb.line,
             fmt::format("rank {} tb {} sends but its send peer is {}", rank, tb.id, tb.send_peer),
             "set the tb's send attribute to another rank (run `ccforge ir check`)");
      }
      if (!forwards_per_line(algo_.protocol)) {
        const TaskId t = low_.add_transfer(rank, tb.send_peer, bytes, costs_, track, label);
        low_.set_chunk(t, step.src_off);
        return single(t);
      }
      const SimTime turnaround = ir::op_receives(step.type) ? runtime_.line_forward : SimTime{0};
      const Lowering::StreamedTransfer out =
          low_.add_streamed_transfer(rank, tb.send_peer, bytes, costs_, turnaround, track, label);
      low_.set_chunk(out.head, step.src_off), low_.set_chunk(out.flow, step.src_off);
      if (!ir::op_receives(step.type)) return StepTasks{out.head, out.flow, out.head};
      // A forwarding step ends when both its own send and the incoming data are through.
      const TaskId done = low_.add_local(SimTime{0}, track, label);
      low_.graph().depend(out.flow, done);
      return StepTasks{out.head, done, out.head};
    }
    switch (step.type) {
      case ir::OpType::Copy:
        return single(low_.add_local(local_copy_time(low_.params(), arch, bytes), track, label));
      case ir::OpType::Reduce:
      case ir::OpType::RecvReduceCopy:
        return single(low_.add_local(local_reduce_time(low_.params(), arch, bytes), track, label));
      default:
        return single(low_.add_local(SimTime{0}, track, label));
    }
  }

  static StepTasks single(TaskId t) { return StepTasks{t, t}; }

  void pair_connections(const std::vector<StepTasks>& task) {
    for (const ir::StepGraph::Connection& conn : steps_.connections()) {
      if (conn.sends.empty()) continue;
      if (conn.recvs.size() != conn.sends.size()) throw_unmatched(conn);
      for (std::size_t k = 0; k < conn.recvs.size(); ++k) {
        const StepTasks& snd = task[static_cast<std::size_t>(conn.sends[k])];
        const StepTasks& rcv = task[static_cast<std::size_t>(conn.recvs[k])];
        if (rcv.head != kNoTask) {
          // Cut-through: the receiver forwards from the first line and finishes after the last.
          low_.graph().depend(snd.head, rcv.entry);
          low_.graph().depend(snd.exit, rcv.exit);
        } else {
          low_.graph().depend(snd.exit, rcv.entry);
        }
      }
    }
    for (const ir::StepGraph::Connection& conn : steps_.connections()) {
      if (conn.sends.empty()) throw_unmatched(conn);
    }
  }

  // The k-th send on a connection starts once the receives before it have freed the slots it needs: it
  // waits for the newest receive whose slots, together with those of the sends after it up to this one,
  // exceed ir::kNcclSteps. Connections persist across iterations, so this reaches back a bounded
  // number of iterations (PeriodDetector accepts that).
  void add_back_pressure(const std::vector<StepTasks>& task) {
    const std::vector<ir::StepGraph::Connection>& conns = steps_.connections();
    for (std::size_t c = 0; c < conns.size(); ++c) {
      SlotsInUse& use = in_use_[c];
      for (std::size_t k = 0; k < conns[c].sends.size(); ++k) {
        const int need = msccl_send_slots(algo_.protocol, chunk_bytes_, steps_.step(conns[c].sends[k]).count);
        std::optional<TaskId> wait;
        while (!use.held.empty() && use.total + need > ir::kNcclSteps) {
          wait = use.held.front().freed_by;
          use.total -= use.held.front().slots;
          use.held.erase(use.held.begin());
        }
        if (wait) low_.graph().depend(*wait, task[static_cast<std::size_t>(conns[c].sends[k])].entry);
        use.held.push_back(SlotsInUse::Held{task[static_cast<std::size_t>(conns[c].recvs[k])].exit, need});
        use.total += need;
      }
    }
  }

  // What the next iteration, starting at task `next`, inherits beyond its predecessor's last tasks per
  // tb (the same tasks of every iteration): the receives holding each connection's slots, relative to
  // `next`.
  std::vector<SlotsInUse> slots_handed_on(TaskId next) const {
    std::vector<SlotsInUse> relative = in_use_;
    for (SlotsInUse& use : relative) {
      for (SlotsInUse::Held& h : use.held) h.freed_by -= next;  // wraps: compared, never used as an id
    }
    return relative;
  }

  [[noreturn]] void throw_unmatched(const ir::StepGraph::Connection& conn) const {
    fail_at(algo_.source_file, algo_.gpus.at(static_cast<std::size_t>(conn.src)).line,
         fmt::format("rank {} sends {} steps to rank {} on channel {} but rank {} receives {}", conn.src,
                     conn.sends.size(), conn.dst, conn.channel, conn.dst, conn.recvs.size()),
         "every send needs a matching receive on the same channel (run `ccforge ir check`)");
  }

  Lowering& low_;
  const ir::Algorithm& algo_;
  const ir::StepGraph& steps_;
  ProtocolCosts costs_;
  MscclRuntimeCosts runtime_;
  std::uint32_t labels_[static_cast<int>(ir::OpType::Nop) + 1] = {};
  std::uint32_t flag_label_ = 0;
  std::vector<ir::StepRef> step_refs_;  // by TaskId, up to the end of the first iteration
  std::vector<SlotsInUse> in_use_;  // per connection of steps_
  ByteCount chunk_bytes_ = 0;
  // An iteration's slots are held at most ir::kNcclSteps sends back, one per iteration at least, so the
  // state handed on repeats within about as many iterations; a bound, in case it does not.
  static constexpr ByteCount kMaxIterationsToRepeat = 4 * ir::kNcclSteps;
};

// A call's lowering and the graph it builds.
struct LoweredCall {
  Lowering low;
  MscclLowering msccl;
  LoweredCall(const topo::Topology& topo, const SimConstants& params, Trace* trace, const ir::Algorithm& algo,
              const ir::StepGraph& steps)
      : low(topo, params, trace), msccl(low, algo, steps) {}
};

}  // namespace

SimResult simulate(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call, const SimParams& params,
                   Trace* trace) {
  // A trace shows every iteration, so it simulates them all.
  return simulate_msccl(topo, algo, call, params, trace, trace == nullptr);
}

std::optional<SimResult> simulate_if_fits(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call,
                                          const SimParams& params) {
  check_gpu_count(topo, algo);
  if (size_misfit(algo, call)) return std::nullopt;
  return simulate_msccl(topo, algo, call, params, nullptr, true);
}

SimResult simulate_msccl(const topo::Topology& topo, const ir::Algorithm& algo, const CallSpec& call,
                         const SimParams& params, Trace* trace, bool extrapolate) {
  check_gpu_count(topo, algo);
  if (const std::optional<Diag> misfit = size_misfit(algo, call)) throw DiagError(*misfit);
  const ByteCount chunk_bytes = ir::executor_bytes(algo.collective, algo.ngpus, call.bytes) / algo.nchunksperloop;
  const ByteCount iters = MscclLowering::iterations(chunk_bytes, algo.protocol);
  const ir::StepGraph steps(algo);
  // Extrapolating, the tile loop is lowered as a loop (its full run too, when no period is proven);
  // otherwise (a trace, or the reference the closed form is tested against) iteration by iteration.
  std::optional<LoweredCall> lowered;
  lowered.emplace(topo, params.constants, trace, algo, steps);
  MscclLowering::Lowered as = lowered->msccl.lower(chunk_bytes, extrapolate);
  if (as == MscclLowering::Lowered::Failed) {  // the iterations did not fold: lower them all
    lowered.emplace(topo, params.constants, trace, algo, steps);
    as = lowered->msccl.lower(chunk_bytes, false);
  }
  const bool loop = as == MscclLowering::Lowered::Loop;
  const EngineStats stats = run_extrapolated(iters, extrapolate && loop, [&](ByteCount blocks) {
    if (loop) lowered->low.graph().set_run(static_cast<std::uint32_t>(blocks), blocks < iters);
    const EngineStats run = lowered->low.run();
    if (run.unfinished > 0 && blocks == iters) {
      const ir::StepRef s = lowered->msccl.step_of(run.first_unfinished);
      fail_at(algo.source_file, algo.gpus.at(s.rank).tbs.at(s.tb).steps.at(s.step).line,
           fmt::format("algorithm deadlocks: {} steps never run, first rank {} tb {} step {}", run.unfinished, s.rank,
                       s.tb, s.step),
           "fix the dependency cycle (run `ccforge ir check`)");
    }
    return run;
  });
  return SimResult{benchmark_iteration_time(stats.makespan + msccl_runtime_costs(params.constants, msccl_runtime(topo)).base, params), algo.name,
                   stats.events, stats.transfers};
}

ByteCount msccl_iteration_bytes(ir::Protocol proto) { return ir::step_bytes(proto); }

int msccl_send_slots(ir::Protocol proto, ByteCount chunk_bytes, int count) {
  const ByteCount tile = ir::tile_bytes(proto);
  const ByteCount step = msccl_iteration_bytes(proto);
  const auto per_call = static_cast<ByteCount>(ir::max_allowed_count(proto, chunk_bytes));
  const ByteCount calls = (static_cast<ByteCount>(std::max(count, 1)) + per_call - 1) / per_call;
  // Lowered iterations one tile of this chunk spans: its calls' slots are spread over them.
  const ByteCount spans = std::max<ByteCount>(1, (std::min(chunk_bytes, tile) + step - 1) / step);
  const ByteCount slots = (calls * static_cast<ByteCount>(ir::steps_per_call(proto)) + spans - 1) / spans;
  // A bigger send streams through them all.
  return static_cast<int>(std::min<ByteCount>(slots, ir::kNcclSteps));
}

}  // namespace ccforge::sim
