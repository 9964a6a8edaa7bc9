// `ccforge tune`'s progress on stderr: a bar per phase on a terminal; off a terminal (logs, CI) a line
// as each phase starts and then about every 10 s, also while one long piece of work reports nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ccforge/search/search.hpp"

namespace ccforge::cli {

class TuneProgressLog {
 public:
  TuneProgressLog();
  ~TuneProgressLog();  // stops the heartbeat
  TuneProgressLog(const TuneProgressLog&) = delete;
  TuneProgressLog& operator=(const TuneProgressLog&) = delete;

  // For TuneOptions::progress; valid while this object lives.
  std::function<void(const search::TuneProgress&)> callback();

 private:
  void update(const search::TuneProgress& p);
  void heartbeat();
  std::string line_locked() const;
  void print_line_locked();

  using Clock = std::chrono::steady_clock;
  const bool tty_;
  const Clock::time_point start_ = Clock::now();
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::string phase_;
  std::size_t done_ = 0, total_ = 0, skipped_ = 0;
  // last_piece_: done last grew; last_worked_: a worked (not skipped) piece last finished.
  Clock::time_point phase_start_ = start_, last_line_ = start_, last_piece_ = start_, last_worked_ = start_;
  std::thread heartbeat_;
};

}  // namespace ccforge::cli
