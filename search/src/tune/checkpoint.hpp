// The tune checkpoint: a journal of finished work, one JSON line each, appended and flushed as each
// finishes: simulations (one candidate, or NCCL, at one size of one collective), the verdict of each
// candidate grid point built and proven, and each candidate's time floors. A run killed at any point
// loses only the work in flight: a torn last line is ignored when resuming. Read back, the journal is
// untrusted input: every entry is checked (its members, kinds, ranges, key, the tune's sizes, no key
// twice) before any is used, and the times against the simulator's lower bound once the model is known
// (Runner::check_resumed).
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ccforge/common/diag.hpp"
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
  // Without `resume` starts an empty journal, unless `path` holds an unfinished tune's journal (a
  // DiagError: it is not overwritten). With it, loads the finished tasks of the journal at `path` (none
  // when it does not exist); a journal made by another tune (fingerprint: topology, dtype, sizes),
  // damaged before its last line, or with an entry the tune cannot have written (a key outside `sizes`,
  // a floors list of another length, a time out of range) is a DiagError at its line.
  CheckpointJournal(std::filesystem::path path, std::string fingerprint, bool resume, std::vector<ByteCount> sizes);

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
  // The line ending a finished tune's journal (output::write_tune_outputs appends it to the copy it keeps).
  static std::string finished_line();
  // A DiagError for a loaded entry found impossible later: at its line, saying it was altered.
  DiagError forged(const std::string& key, const std::string& problem) const;

 private:
  void load();
  void refuse_unfinished() const;
  // Why a parsed entry cannot be one this tune wrote, or empty.
  std::string entry_problem(const nlohmann::json& entry) const;
  // Adds one parsed entry line to the maps; false when its key was known already.
  bool add(const nlohmann::json& entry);
  void append(const std::string& line);
  std::filesystem::path path_;
  std::string fingerprint_;
  std::vector<ByteCount> sizes_;
  std::map<std::string, int> lines_;  // line of each loaded entry
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
