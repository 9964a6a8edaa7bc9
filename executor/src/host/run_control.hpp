// Shared state of one host run: the abort flag every blocking wait polls, the progress counter the
// watchdog watches, and the first error, so that one failing thread stops all of them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

#include "ccforge/common/diag.hpp"

namespace ccforge::executor::host {

// Thrown inside worker threads to unwind once the run is aborted; never escapes the backend.
struct RunAborted {};

class RunControl {
 public:
  // Blocking waits wake at least this often to notice an abort.
  static constexpr std::chrono::milliseconds kPollInterval{20};

  void record_progress() { progress_.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t progress() const { return progress_.load(std::memory_order_relaxed); }

  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  void throw_if_aborted() const {
    if (aborted()) throw RunAborted{};
  }

  // Keeps the first error; later ones are consequences of it.
  void fail(Diag diag) {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::move(diag);
    }
    aborted_.store(true, std::memory_order_release);
  }

  std::optional<Diag> error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  std::atomic<std::uint64_t> progress_{0};
  std::atomic<bool> aborted_{false};
  mutable std::mutex mutex_;
  std::optional<Diag> error_;
};

}  // namespace ccforge::executor::host
