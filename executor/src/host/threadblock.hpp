// Interprets one threadblock's steps on the host, as mscclRunInterpreter does on the GPU: the whole
// program runs once per tile of every chunk, steps strictly in order, cross-tb waits through flags.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "call_barrier.hpp"
#include "connection.hpp"
#include "plan.hpp"
#include "run_control.hpp"

namespace ccforge::executor::host {

// What a tb is blocked on, for the watchdog's report.
enum class Blocked : int { Running, OnDependency, OnSend, OnReceive, OnCallEnd, Done };

struct TbStatus {
  std::atomic<int> step{0};
  std::atomic<Blocked> blocked{Blocked::Running};
  std::atomic<std::uint64_t> awaited{0};  // OnDependency: the flag value waited for; OnCallEnd: the call
  std::chrono::steady_clock::time_point finished;
};

struct RankMemory {
  std::byte* input = nullptr;
  std::byte* output = nullptr;
  std::byte* scratch = nullptr;
};

struct TbContext {
  const ir::Algorithm* algo = nullptr;
  const CallSpec* call = nullptr;
  const ChunkPlan* plan = nullptr;
  int rank = 0;
  const ir::ThreadBlock* tb = nullptr;
  RankMemory memory;
  Connection* send = nullptr;  // (rank -> tb.send_peer, tb.channel)
  Connection* recv = nullptr;  // (tb.recv_peer -> rank, tb.channel)
  TbFlags* flags = nullptr;    // this rank's
  CallBarrier* call_end = nullptr;  // this rank's
  RunControl* control = nullptr;
  TbStatus* status = nullptr;
};

// Flags count (iteration, step): iteration g's step s publishes g * kFlagStride + s + 1.
inline constexpr std::uint64_t kFlagStride = std::uint64_t{1} << 20;

// Runs `calls` back-to-back collective calls. Throws DiagError for a transfer whose size the peer does
// not match, RunAborted when another thread failed.
void run_threadblock(const TbContext& ctx, int calls);

}  // namespace ccforge::executor::host
