// The tune checkpoint: a journal of finished tasks (one candidate, or NCCL, at every size of one
// collective), one JSON line each, appended and flushed as each task finishes. A run killed at any
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

struct TaskTimes {
  std::vector<std::optional<SimTime>> times;  // per size
  std::vector<std::string> labels;            // NCCL tasks: what NCCL ran at each size
};

class CheckpointJournal {
 public:
  // Without `resume` starts an empty journal. With it, loads the finished tasks of the journal at
  // `path` (none when it does not exist); a journal made by another tune (fingerprint: topology, dtype,
  // sizes) or damaged before its last line is a DiagError.
  CheckpointJournal(std::filesystem::path path, std::string fingerprint, bool resume);

  const std::map<std::string, TaskTimes>& finished() const { return finished_; }
  void record(const std::string& key, const TaskTimes& times);  // not thread-safe: callers serialise

 private:
  void load();
  std::filesystem::path path_;
  std::string fingerprint_;
  std::map<std::string, TaskTimes> finished_;
  std::ofstream out_;
};

}  // namespace ccforge::search
