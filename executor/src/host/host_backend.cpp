// The host backend: every (rank, tb) is a thread; the calling thread is the watchdog.
#include <algorithm>
#include <latch>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "ccforge/executor/executor.hpp"
#include "connection.hpp"
#include "plan.hpp"
#include "threadblock.hpp"

namespace ccforge::executor {
namespace {

using ConnectionKey = std::tuple<int, int, int>;  // (sender rank, receiver rank, channel)

class HostRun {
 public:
  HostRun(const ir::Algorithm& algo, const CallSpec& call, const ChunkPlan& plan, std::vector<RankBuffers>& buffers,
          const ExecOptions& options)
      : algo_(algo), call_(call), plan_(plan), options_(options) {
    for (int r = 0; r < algo.ngpus; ++r) {
      const auto& gpu = algo.gpus[static_cast<std::size_t>(r)];
      scratch_.emplace_back(buffer_elems(algo, call, plan, r, ir::BufferKind::Scratch) * plan.elem_bytes);
      flags_.push_back(std::make_unique<host::TbFlags>(gpu.tbs.size(), control_));
      call_ends_.push_back(std::make_unique<host::CallBarrier>(gpu.tbs.size(), control_));
      host::RankMemory memory = rank_memory(r, buffers[static_cast<std::size_t>(r)]);
      for (const ir::ThreadBlock& tb : gpu.tbs) contexts_.push_back(make_context(r, tb, memory));
    }
    statuses_ = std::vector<host::TbStatus>(contexts_.size());
    for (std::size_t i = 0; i < contexts_.size(); ++i) contexts_[i].status = &statuses_[i];
  }

  Timing execute(int calls) {
    std::latch start(1);
    std::vector<std::jthread> threads;
    std::atomic<std::size_t> finished{0};
    for (host::TbContext& ctx : contexts_) {
      threads.emplace_back([&, ctx_ptr = &ctx] {
        start.wait();
        run_guarded(*ctx_ptr, calls);
        ctx_ptr->status->finished = std::chrono::steady_clock::now();
        ctx_ptr->status->blocked = host::Blocked::Done;
        finished.fetch_add(1);
      });
    }
    const auto t0 = std::chrono::steady_clock::now();
    start.count_down();
    watch(finished);
    threads.clear();  // joins
    if (auto error = control_.error()) throw DiagError(*error);
    auto t1 = t0;
    for (const auto& s : statuses_) t1 = std::max(t1, s.finished);
    const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    return Timing{calls > 0 ? us / calls : 0.0, calls};
  }

 private:
  host::RankMemory rank_memory(int r, RankBuffers& b) {
    const BufferLayout layout = buffer_layout(call_, algo_.ngpus, r);
    host::RankMemory m;
    if (call_.inplace) {
      m.input = b.recv.data() + layout.inplace_send_offset * plan_.elem_bytes;
      m.output = b.recv.data() + layout.inplace_recv_offset * plan_.elem_bytes;
    } else {
      m.input = b.send.data();
      m.output = b.recv.data();
    }
    m.scratch = scratch_.back().data();
    return m;
  }

  host::Connection* connection(int from, int to, int channel) {
    auto& slot = connections_[ConnectionKey{from, to, channel}];
    if (!slot) slot = std::make_unique<host::Connection>(options_.slots_per_connection, ir::steps_per_tile(algo_.protocol), control_);
    return slot.get();
  }

  host::TbContext make_context(int r, const ir::ThreadBlock& tb, host::RankMemory memory) {
    host::TbContext ctx{&algo_, &call_, &plan_, r, &tb, memory, nullptr, nullptr, flags_.back().get(), call_ends_.back().get(), &control_, nullptr};
    if (tb.send_peer >= 0) ctx.send = connection(r, tb.send_peer, tb.channel);
    if (tb.recv_peer >= 0) ctx.recv = connection(tb.recv_peer, r, tb.channel);
    return ctx;
  }

  void run_guarded(const host::TbContext& ctx, int calls) {
    try {
      host::run_threadblock(ctx, calls);
    } catch (const host::RunAborted&) {
    } catch (const DiagError& e) {
      control_.fail(e.diag());
    } catch (const std::exception& e) {
      control_.fail(Diag{{algo_.source_file, ctx.tb->line}, std::string("host executor: ") + e.what(), ""});
    }
  }

  // Returns when every thread finished or the run was aborted; a run in which no step finishes for
  // options_.watchdog is declared deadlocked.
  void watch(const std::atomic<std::size_t>& finished) {
    auto last_change = std::chrono::steady_clock::now();
    std::uint64_t last_progress = control_.progress();
    while (finished.load() < contexts_.size()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const auto now = std::chrono::steady_clock::now();
      if (control_.progress() != last_progress) {
        last_progress = control_.progress();
        last_change = now;
      } else if (now - last_change > options_.watchdog && !control_.aborted()) {
        // A slow machine (sanitizers, overload) is not a deadlock: only when every unfinished tb waits
        // on a condition that still does not hold.
        if (all_waits_unsatisfied()) control_.fail(deadlock_report());
        else last_change = now;
      }
    }
  }

  bool all_waits_unsatisfied() const {
    for (const host::TbContext& ctx : contexts_) {
      const host::TbStatus& status = *ctx.status;
      const int s = status.step;
      switch (status.blocked.load()) {
        case host::Blocked::Done: break;
        case host::Blocked::Running: return false;
        case host::Blocked::OnSend: if (!ctx.send->full()) return false; break;
        case host::Blocked::OnReceive: if (!ctx.recv->empty()) return false; break;
        case host::Blocked::OnDependency:
          if (ctx.flags->reached(static_cast<std::size_t>(ctx.tb->steps[static_cast<std::size_t>(s)].dep_tb), status.awaited)) return false;
          break;
        case host::Blocked::OnCallEnd: if (ctx.call_end->passed(status.awaited)) return false; break;
      }
    }
    return true;
  }

  Diag deadlock_report() const;

  const ir::Algorithm& algo_;
  const CallSpec& call_;
  const ChunkPlan& plan_;
  ExecOptions options_;
  host::RunControl control_;
  std::vector<std::vector<std::byte>> scratch_;
  std::vector<std::unique_ptr<host::TbFlags>> flags_;
  std::vector<std::unique_ptr<host::CallBarrier>> call_ends_;
  std::map<ConnectionKey, std::unique_ptr<host::Connection>> connections_;
  std::vector<host::TbContext> contexts_;
  std::vector<host::TbStatus> statuses_;
};

Diag HostRun::deadlock_report() const {
  std::size_t stuck = 0;
  const host::TbContext* first = nullptr;
  // Report the first tb stuck inside the program: tbs waiting at the end of a call only wait for those.
  for (std::size_t i = 0; i < contexts_.size(); ++i) {
    const host::Blocked blocked = statuses_[i].blocked;
    if (blocked == host::Blocked::Done) continue;
    ++stuck;
    if (!first || (first->status->blocked == host::Blocked::OnCallEnd && blocked != host::Blocked::OnCallEnd)) first = &contexts_[i];
  }
  const int s = first->status->step;
  const ir::Step* step = first->tb->steps.empty() ? nullptr : &first->tb->steps[static_cast<std::size_t>(s)];
  std::string what;
  switch (first->status->blocked.load()) {
    case host::Blocked::OnDependency:
      what = "waits for tb " + std::to_string(step->dep_tb) + " to pass step " + std::to_string(step->dep_step);
      break;
    case host::Blocked::OnSend: what = "waits for a free slot to rank " + std::to_string(first->tb->send_peer); break;
    case host::Blocked::OnReceive: what = "waits to receive from rank " + std::to_string(first->tb->recv_peer); break;
    case host::Blocked::OnCallEnd: what = "finished the call and waits for the rank's other tbs"; break;
    default: what = "is running"; break;
  }
  return Diag{{algo_.source_file, step ? step->line : first->tb->line},
              "deadlock: no step finished for " + std::to_string(options_.watchdog.count()) + " ms; rank " +
                  std::to_string(first->rank) + " tb " + std::to_string(first->tb->id) + " step " + std::to_string(s) +
                  " " + what + " on channel " + std::to_string(first->tb->channel) + " (" + std::to_string(stuck) +
                  " tbs stuck)",
              "run `ccforge ir check` on the algorithm: its sends, receives or dependencies do not pair up"};
}

class HostBackend final : public Backend {
 public:
  explicit HostBackend(ExecOptions options) : options_(options) {}
  std::string name() const override { return "host"; }

  Timing run(const ir::Algorithm& algo, const CallSpec& call, std::vector<RankBuffers>& buffers, int iterations) override {
    const ChunkPlan plan = plan_chunks(algo, call);
    check_runnable(algo, call, plan);
    check_buffers(algo, call, buffers);
    HostRun run(algo, call, plan, buffers, options_);
    return run.execute(iterations);
  }

  std::optional<Timing> run_baseline(const CallSpec&, std::vector<RankBuffers>&, int) override { return std::nullopt; }

 private:
  ExecOptions options_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(ExecOptions options) { return std::make_unique<HostBackend>(options); }

}  // namespace ccforge::executor
