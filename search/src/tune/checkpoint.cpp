#include "tune/checkpoint.hpp"

#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

constexpr int kFormatVersion = 1;

std::string header_line(const std::string& fingerprint) {
  return nlohmann::json{{"version", kFormatVersion}, {"fingerprint", fingerprint}}.dump() + "\n";
}

Sample parse_sample(const nlohmann::json& j) {
  const auto& ps = j.at("ps");
  return {ps.is_null() ? std::nullopt : std::optional{SimTime{ps.get<std::int64_t>()}}, j.value("error", std::string{})};
}

// "error" only where there is one, so that a journal without refusals reads as before it existed.
std::string sample_line(const std::string& key, const Sample& s) {
  const nlohmann::json ps = s.time ? nlohmann::json(s.time->ps) : nlohmann::json(nullptr);
  nlohmann::json line{{"key", key}, {"ps", ps}};
  if (!s.error.empty()) line["error"] = s.error;
  return line.dump() + "\n";
}

nlohmann::json verdict_json(const std::string& key, const Verdict& v) {
  return {{"key", key}, {"verdict", {{"name", v.name}, {"accepted", v.accepted}, {"unfit", v.unfit}, {"why_not", v.why_not}}}};
}

Verdict parse_verdict(const nlohmann::json& j) {
  return {j.at("name").get<std::string>(), j.at("accepted").get<bool>(), j.at("unfit").get<bool>(), j.at("why_not").get<std::string>()};
}

nlohmann::json floors_json(const std::string& key, const std::vector<SimTime>& floors) {
  nlohmann::json ps = nlohmann::json::array();
  for (SimTime t : floors) ps.push_back(t.ps);
  return {{"key", key}, {"floors", ps}};
}

std::vector<SimTime> parse_floors(const nlohmann::json& j) {
  std::vector<SimTime> floors;
  for (const auto& ps : j) floors.push_back(SimTime{ps.get<std::int64_t>()});
  return floors;
}

// Everything a tune's journaled work depends on, so that --resume never mixes results of different
// models (another profile changes parameter values, not the topology's name).
std::string fingerprint(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  std::string f = topo.name() + "|" + to_string(options.dtype) + "|";
  for (ByteCount b : options.sizes) f += std::to_string(b) + ",";
  const ParamTable sim_params = sim::param_table(params);
  for (const ParamTable* table : {&topo.link_params(), &sim_params})
    for (const Param& p : table->all()) f += "|" + p.name + "=" + fmt::format("{}", p.value);
  return f;
}

}  // namespace

std::string checkpoint_file_name(int rank) {
  return rank == 0 ? "checkpoint.jsonl" : fmt::format("checkpoint.rank{}.jsonl", rank);
}

CheckpointJournal open_tune_journal(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  std::filesystem::create_directories(options.out_dir);
  const int rank = options.share ? options.share->rank() : 0;
  return CheckpointJournal(options.out_dir / checkpoint_file_name(rank), fingerprint(topo, options, params), options.resume);
}

CheckpointJournal::CheckpointJournal(std::filesystem::path path, std::string fingerprint, bool resume)
    : path_(std::move(path)), fingerprint_(std::move(fingerprint)) {
  if (resume && std::filesystem::exists(path_)) {
    load();
  } else {
    write_file_atomically(path_, header_line(fingerprint_));
  }
  out_.open(path_, std::ios::app);
  if (!out_) throw DiagError(Diag{{path_.string(), 0}, "cannot append to the checkpoint", "check that the directory is writable"});
}

void CheckpointJournal::load() {
  const std::string text = read_file(path_);
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& problem) {
    return DiagError(Diag{{path_.string(), number}, problem, "delete it or rerun without --resume"});
  };
  while (std::getline(lines, line)) {
    ++number;
    const bool last = lines.peek() == std::char_traits<char>::eof();
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (number == 1) {
      if (j.is_discarded() || j.value("version", 0) != kFormatVersion) throw fail("not a ccforge tune checkpoint");
      if (j.value("fingerprint", std::string{}) != fingerprint_)
        throw fail("checkpoint was made by a tune with another topology, profile, dtype or size range");
      continue;
    }
    if (j.is_discarded() && last) break;  // torn by a kill mid-write: that task simply reruns
    try {
      add(j);
    } catch (const nlohmann::json::exception&) {
      throw fail("malformed checkpoint entry");
    }
  }
  if (number == 0) throw fail("empty checkpoint");
  // Rewrite without a torn tail so that appended lines start on a fresh line.
  std::string rewritten = header_line(fingerprint_);
  for (const auto& [key, v] : verdicts_) rewritten += verdict_json(key, v).dump() + "\n";
  for (const auto& [key, f] : floors_) rewritten += floors_json(key, f).dump() + "\n";
  for (const auto& [key, t] : finished_) rewritten += sample_line(key, t);
  write_file_atomically(path_, rewritten);
}

bool CheckpointJournal::add(const nlohmann::json& j) {
  const std::string key = j.at("key").get<std::string>();
  if (j.contains("verdict")) return verdicts_.insert_or_assign(key, parse_verdict(j.at("verdict"))).second;
  if (j.contains("floors")) return floors_.insert_or_assign(key, parse_floors(j.at("floors"))).second;
  return finished_.insert_or_assign(key, parse_sample(j)).second;
}

void CheckpointJournal::absorb(const std::string& lines) {
  std::istringstream in(lines);
  for (std::string entry; std::getline(in, entry);) {
    const nlohmann::json j = nlohmann::json::parse(entry);  // line()'s own output: a parse error is a bug, thrown
    if (add(j)) append(entry + "\n");
  }
}

std::string CheckpointJournal::line(const std::string& key, const Sample& sample) { return sample_line(key, sample); }

std::string CheckpointJournal::line(const std::string& key, const std::vector<SimTime>& floors) {
  return floors_json(key, floors).dump() + "\n";
}

void CheckpointJournal::append(const std::string& line) {
  out_ << line;
  out_.flush();
}

void CheckpointJournal::record(const std::string& key, const Sample& sample) {
  append(line(key, sample));
  finished_[key] = sample;
}

std::string CheckpointJournal::line(const std::string& key, const Verdict& verdict) { return verdict_json(key, verdict).dump() + "\n"; }

void CheckpointJournal::record(const std::string& key, const Verdict& verdict) {
  append(line(key, verdict));
  verdicts_[key] = verdict;
}

void CheckpointJournal::record(const std::string& key, const std::vector<SimTime>& floors) {
  append(line(key, floors));
  floors_[key] = floors;
}

}  // namespace ccforge::search
