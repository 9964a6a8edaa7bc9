// Kernel boundaries: on the GPU, call c+1's kernel starts on a rank's stream only after every block of
// call c finished. All tbs of a rank meet here between calls; waits poll the abort flag.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>

#include "run_control.hpp"

namespace ccforge::executor::host {

class CallBarrier {
 public:
  CallBarrier(std::size_t tbs, RunControl& control) : tbs_(tbs), control_(control) {}

  // Blocks until all tbs of the rank have finished call `call`. The last to arrive runs `on_last` (the
  // rank's end-of-call work) before any tb starts the next call.
  void finish_call(std::uint64_t call, const std::function<void()>& on_last = {}) {
    std::unique_lock lock(mutex_);
    if (++arrived_ == tbs_) {
      if (on_last) on_last();
      arrived_ = 0;
      completed_ = call + 1;
      changed_.notify_all();
      return;
    }
    while (completed_ <= call) {
      control_.throw_if_aborted();
      changed_.wait_for(lock, RunControl::kPollInterval);
    }
  }

  // For the watchdog: whether a tb waiting after call `call` could go on.
  bool passed(std::uint64_t call) {
    std::lock_guard lock(mutex_);
    return completed_ > call;
  }

 private:
  const std::size_t tbs_;
  RunControl& control_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t arrived_ = 0;
  std::uint64_t completed_ = 0;
};

}  // namespace ccforge::executor::host
