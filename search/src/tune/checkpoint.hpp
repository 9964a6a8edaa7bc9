// The tune checkpoint: a journal of finished simulations (one candidate, or NCCL, at one size of one
// collective), one JSON line each, appended and flushed as each finishes. A run killed at any
// point loses only the tasks in flight: a torn last line is ignored when resuming.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ccforge/common/units.hpp"

namespace ccforge::search {

struct Sample {
  std::optional<SimTime> time;  // nullopt: the size does not split into the candidate's chunks, or `error`
  std::string error;            // why the simulator refused the candidate at this size; empty when it ran
};

class CheckpointJournal {
 public:
  // Without `resume` starts an empty journal. With it, loads the finished tasks of the journal at
  // `path` (none when it does not exist); a journal made by another tune (fingerprint: topology, dtype,
  // sizes) or damaged before its last line is a DiagError.
  CheckpointJournal(std::filesystem::path path, std::string fingerprint, bool resume);

  const std::map<std::string, Sample>& finished() const { return finished_; }
  void record(const std::string& key, const Sample& sample);  // not thread-safe: callers serialise

 private:
  void load();
  std::filesystem::path path_;
  std::string fingerprint_;
  std::map<std::string, Sample> finished_;
  std::ofstream out_;
};

}  // namespace ccforge::search
