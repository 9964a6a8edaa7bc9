// Wall and CPU time per tune phase, and the process's peak resident memory, for report.json: where a
// tune spends its time and memory, measured rather than guessed (issue 16).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <string>
#include <vector>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// CPU seconds of the whole process (every thread), user plus system.
inline double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

// The process's resident-set high-water mark in MiB (Linux reports ru_maxrss in KiB).
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// One PhaseTime per phase: each mark() closes the phase begun by the last one (or by construction).
class PhaseClock {
 public:
  // Ends the running phase under `name`; the next one starts now. Returns its wall seconds.
  double mark(std::string name) {
    const auto now = std::chrono::steady_clock::now();
    const double cpu = process_cpu_s();
    const double wall = std::chrono::duration<double>(now - wall_).count();
    phases_.push_back({std::move(name), wall, cpu - cpu_, peak_rss_mib()});
    wall_ = now;
    cpu_ = cpu;
    return wall;
  }
  const std::vector<PhaseTime>& phases() const { return phases_; }

 private:
  std::vector<PhaseTime> phases_;
  std::chrono::steady_clock::time_point wall_ = std::chrono::steady_clock::now();
  double cpu_ = process_cpu_s();
};

}  // namespace ccforge::search
