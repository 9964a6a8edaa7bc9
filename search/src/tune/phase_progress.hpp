// Progress of one tune phase, reported through TuneOptions::progress: once as the phase starts (so a
// log shows what runs before its first piece of work ends), then after each piece, serialised.
// Construction starts the phase unless `started` is false (then start() does).
#pragma once

#include <mutex>
#include <string_view>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

class PhaseProgress {
 public:
  PhaseProgress(const TuneOptions& options, std::string_view phase, std::size_t total, bool started = true)
      : progress_(options.progress), phase_(phase), total_(total) {
    if (started) start();
  }

  void start() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (progress_) progress_({phase_, done_, total_, skipped_});
  }

  void grow(std::size_t more) {
    const std::lock_guard<std::mutex> lock(mutex_);
    total_ += more;
  }
  void advance(std::size_t more = 1) { add(more, 0); }
  // Pieces done without work (pruned, or resumed from a checkpoint): left out of the ETA's average.
  void skip(std::size_t more) { add(more, more); }

 private:
  void add(std::size_t done, std::size_t skipped) {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ += done;
    skipped_ += skipped;
    if (progress_ && done > 0) progress_({phase_, done_, total_, skipped_});
  }

  const std::function<void(const TuneProgress&)>& progress_;
  std::string_view phase_;
  std::mutex mutex_;
  std::size_t done_ = 0, total_ = 0, skipped_ = 0;
};

}  // namespace ccforge::search
