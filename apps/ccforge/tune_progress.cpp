#include "tune_progress.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <optional>

#include <fmt/core.h>

namespace ccforge::cli {

namespace {

// Off a terminal, at most one line per this period (plus one as each phase starts).
constexpr std::chrono::seconds kLogPeriod{10};

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

}  // namespace

TuneProgressLog::TuneProgressLog() : tty_(isatty(fileno(stderr)) != 0) {
  if (!tty_) heartbeat_ = std::thread([this] { heartbeat(); });
}

TuneProgressLog::~TuneProgressLog() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  if (tty_ && !phase_.empty()) fmt::print(stderr, "\n");
}

std::function<void(const search::TuneProgress&)> TuneProgressLog::callback() {
  return [this](const search::TuneProgress& p) { update(p); };
}

void TuneProgressLog::update(const search::TuneProgress& p) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const bool new_phase = p.phase != phase_;
  if (new_phase) {
    if (tty_ && !phase_.empty()) fmt::print(stderr, "\n");
    phase_ = p.phase;
    phase_start_ = Clock::now();
  }
  if (new_phase || p.done != done_) last_piece_ = Clock::now();
  if (new_phase || p.done - p.skipped != done_ - skipped_) last_worked_ = Clock::now();
  done_ = p.done;
  total_ = p.total;
  skipped_ = p.skipped;
  if (tty_ || new_phase || Clock::now() - last_line_ >= kLogPeriod) print_line_locked();
}

// The phase's ETA (search::phase_seconds_left) assumes its remaining pieces take as long as its worked
// ones did on average; pruned and resumed pieces cost nothing. Once no piece has finished for longer than
// that ETA, the running ones break the assumption (an x2048 tune's 1 GB allreduce ran 7 minutes while the
// line said 13-35 s), and the line says so instead of an estimate.
std::string TuneProgressLog::line_locked() const {
  const Clock::time_point now = Clock::now();
  const std::string count = total_ > 0 ? fmt::format("{}/{} ({:.0f}%)", done_, total_, 100.0 * static_cast<double>(done_) / static_cast<double>(total_))
                                       : fmt::format("{}", done_);
  const double worked_s = seconds(last_worked_ - phase_start_);
  std::string eta = "ETA unknown";
  if (total_ > 0 && done_ >= total_) {
    eta = "ETA 0 s";
  } else if (const std::optional<double> remaining = search::phase_seconds_left({phase_, done_, total_, skipped_}, worked_s)) {
    const double average = worked_s / static_cast<double>(done_ - skipped_);
    const double waiting = seconds(now - last_piece_);
    eta = waiting <= *remaining ? fmt::format("ETA {:.0f} s", *remaining - waiting)
                                : fmt::format("ETA unknown (nothing finished for {:.0f} s; a piece took {:.1f} s on average)", waiting, average);
  }
  return fmt::format("tune: {} {}, {:.1f} s elapsed, phase {}, peak {:.2f} GiB", phase_, count, seconds(now - start_), eta,
                     peak_rss_gib());
}

void TuneProgressLog::print_line_locked() {
  if (tty_) fmt::print(stderr, "\r{}   ", line_locked());
  else fmt::print(stderr, "{}\n", line_locked());
  std::fflush(stderr);
  last_line_ = Clock::now();
}

void TuneProgressLog::heartbeat() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    stop_cv_.wait_until(lock, last_line_ + kLogPeriod, [this] { return stop_; });
    if (!stop_ && !phase_.empty() && Clock::now() - last_line_ >= kLogPeriod) print_line_locked();
  }
}

}  // namespace ccforge::cli
