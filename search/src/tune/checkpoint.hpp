// The tune checkpoint: a journal of finished work, one JSON line each, appended and flushed as each
// finishes: simulations (one candidate, or NCCL, at one size of one collective), the verdict of each
// candidate grid point built and proven, and each candidate's time floors. A run killed at any point
// loses only the work in flight: a torn last line is ignored when resuming.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ccforge/common/units.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::search {

struct Sample {
  std::optional<SimTime> time;  // nullopt: the size does not split into the candidate's chunks, or `error`
  std::string error;            // why the simulator refused the candidate at this size; empty when it ran
};

// What building and proving one grid point gave (tune/candidates.hpp): a resumed tune rebuilds an
// accepted point without proving it again, and does not rebuild a rejected one.
struct Verdict {
  std::string name;
  bool accepted = false;
  bool unfit = false;   // rejected by the runtime's rules
  std::string why_not;  // rejected: why
};

class CheckpointJournal {
 public:
  // Without `resume` starts an empty journal. With it, loads the finished tasks of the journal at
  // `path` (none when it does not exist); a journal made by another tune (fingerprint: topology, dtype,
  // sizes) or damaged before its last line is a DiagError.
  CheckpointJournal(std::filesystem::path path, std::string fingerprint, bool resume);

  const std::map<std::string, Sample>& finished() const { return finished_; }
  const std::map<std::string, Verdict>& verdicts() const { return verdicts_; }
  const std::map<std::string, std::vector<SimTime>>& floors() const { return floors_; }
  // Not thread-safe: callers serialise. Keys are unique within their kind.
  void record(const std::string& key, const Sample& sample);
  void record(const std::string& key, const Verdict& verdict);
  void record(const std::string& key, const std::vector<SimTime>& floors);
  // Entries as record() journals them, one line each: what the processes of a shared tune send each other.
  static std::string line(const std::string& key, const Sample& sample);
  static std::string line(const std::string& key, const Verdict& verdict);
  static std::string line(const std::string& key, const std::vector<SimTime>& floors);
  // Records each entry of `lines` (line()'s output, concatenated) whose key this journal lacks.
  void absorb(const std::string& lines);

 private:
  void load();
  // Adds one parsed entry line to the maps; false when its key was known already.
  bool add(const nlohmann::json& entry);
  void append(const std::string& line);
  std::filesystem::path path_;
  std::string fingerprint_;
  std::map<std::string, Sample> finished_;
  std::map<std::string, Verdict> verdicts_;
  std::map<std::string, std::vector<SimTime>> floors_;
  std::ofstream out_;
};

// The journal file of process `rank` of a tune's job: checkpoint.jsonl for rank 0 (the one a
// single process writes, and which holds every finished result of the job), checkpoint.rankR.jsonl
// for the others (their own work).
std::string checkpoint_file_name(int rank);

// This process's journal in options.out_dir (created), resumed with options.resume; its fingerprint is
// everything journaled work depends on: topology, dtype, sizes, link and simulator parameters.
CheckpointJournal open_tune_journal(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params);

}  // namespace ccforge::search
