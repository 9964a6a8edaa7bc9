// One direction of one (sender rank, receiver rank, channel) connection: a FIFO of transfers with a
// bounded number of slots, as NCCL's per-peer buffers with NCCL_STEPS slots and head/tail flags.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

#include "run_control.hpp"

namespace ccforge::executor::host {

class Connection {
 public:
  Connection(int capacity_slots, int slots_per_transfer, RunControl& control)
      : capacity_(capacity_slots), per_transfer_(slots_per_transfer), control_(control) {}

  // Blocks while the slots are full (the receiver has not consumed earlier transfers).
  void push(std::vector<std::byte> data);
  // Blocks until the next transfer in FIFO order arrives.
  std::vector<std::byte> pop();

  // For the watchdog: whether a push or a pop would block right now.
  bool full();
  bool empty();

 private:
  const int capacity_;
  const int per_transfer_;
  RunControl& control_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<std::byte>> queue_;
  int used_slots_ = 0;
};

// Per-rank tb flags: tb t has published `value[t]`, a monotone (iteration, step) counter (formats.md §1.4).
class TbFlags {
 public:
  TbFlags(std::size_t tbs, RunControl& control) : values_(tbs, 0), control_(control) {}
  void publish(std::size_t tb, std::uint64_t value);
  void wait_at_least(std::size_t tb, std::uint64_t value);
  bool reached(std::size_t tb, std::uint64_t value);

 private:
  std::vector<std::uint64_t> values_;
  RunControl& control_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace ccforge::executor::host
