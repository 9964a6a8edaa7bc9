#include "tune/checkpoint.hpp"

#include <algorithm>
#include <set>

#include <sys/stat.h>
#include <sstream>
#include <string_view>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::search {

namespace {

constexpr int kFormatVersion = 1;
// The last line of a finished tune's journal (output::write_tune_outputs appends it): a new tune may replace such
// a journal, but not one of a tune that was killed or failed, whose results only --resume continues.
constexpr std::string_view kFinishedLine = R"({"finished":true})";
// The longest time a journal may hold: no call in the simulator's model takes a week, and the bound
// keeps sums of journaled times far from int64 overflow.
constexpr std::int64_t kMaxJournalPs = std::int64_t{7} * 24 * 3600 * 1'000'000'000'000;
// Keys, names and messages the tune writes are short; a longer string is not the tune's.
constexpr std::size_t kMaxTextBytes = 4096;

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

// A journal line parsed, or discarded; `duplicate` names a member that appears twice in one object
// (nlohmann keeps the last silently).
nlohmann::json parse_entry(const std::string& line, std::string& duplicate) {
  std::vector<std::set<std::string>> objects;
  const nlohmann::json::parser_callback_t note = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::object_start) objects.emplace_back();
    if (event == nlohmann::json::parse_event_t::object_end && !objects.empty()) objects.pop_back();
    if (event == nlohmann::json::parse_event_t::key && !objects.empty() && !objects.back().insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  return nlohmann::json::parse(line, note, false);
}

// Why a string member read back cannot be the tune's, or empty.
std::string text_problem(const nlohmann::json& v, const char* member) {
  if (!v.is_string()) return fmt::format("\"{}\" is not a string", member);
  const std::string& text = v.get_ref<const std::string&>();
  if (text.size() > kMaxTextBytes) return fmt::format("\"{}\" is {} bytes long (at most {})", member, text.size(), kMaxTextBytes);
  if (first_unprintable(text)) return fmt::format("\"{}\" holds a control character or malformed UTF-8", member);
  return {};
}

// Why a time read back is not one the tune could have journaled, or empty.
std::string time_problem(const nlohmann::json& v, const char* what, std::int64_t min_ps) {
  if (!v.is_number_integer()) return fmt::format("{} {} is not a whole number of picoseconds", what, v.dump());
  const bool over_int64 = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxJournalPs);
  if (over_int64 || v.get<std::int64_t>() < min_ps || v.get<std::int64_t>() > kMaxJournalPs)
    return fmt::format("{} {} ps is outside {} to {} ps", what, v.dump(), min_ps, kMaxJournalPs);
  return {};
}

// Why `members` are not exactly the members of `j`, or empty.
std::string members_problem(const nlohmann::json& j, std::initializer_list<const char*> required,
                            std::initializer_list<const char*> optional = {}) {
  if (!j.is_object()) return "an entry is not a JSON object";
  for (const char* m : required)
    if (!j.contains(m)) return fmt::format("no \"{}\"", m);
  for (const auto& item : j.items()) {
    const std::string& name = item.key();
    const auto is_name = [&](const char* m) { return name == m; };
    if (std::none_of(required.begin(), required.end(), is_name) && std::none_of(optional.begin(), optional.end(), is_name))
      return fmt::format("unknown member \"{}\"", printable(name));
  }
  return {};
}

// A key's part before its first '/', and after its last ("COLLECTIVE/NAME/BYTES").
std::string_view first_part(std::string_view key) { return key.substr(0, key.find('/')); }
std::string_view last_part(std::string_view key) { return key.substr(key.rfind('/') + 1); }

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

std::string CheckpointJournal::entry_problem(const nlohmann::json& j) const {
  if (!j.is_object() || !j.contains("key")) return "an entry without a \"key\"";
  if (std::string p = text_problem(j.at("key"), "key"); !p.empty()) return p;
  const std::string& key = j.at("key").get_ref<const std::string&>();
  const std::size_t parts = static_cast<std::size_t>(std::count(key.begin(), key.end(), '/')) + 1;
  if (j.contains("verdict")) {
    // built/COLLECTIVE/GENERATOR/TREES/REQUEST/PROTOCOL (tune/candidates.cpp)
    std::string_view rest = std::string_view(key).substr(key.find('/') + 1);
    if (first_part(key) != "built" || parts != 6 || !ir::collective_from_string(first_part(rest)) ||
        !ir::protocol_from_string(last_part(key)))
      return fmt::format("verdict key '{}' is not built/COLLECTIVE/GENERATOR/TREES/POINT/PROTOCOL", key);
    if (std::string p = members_problem(j, {"key", "verdict"}); !p.empty()) return p;
    const nlohmann::json& v = j.at("verdict");
    if (std::string p = members_problem(v, {"name", "accepted", "unfit", "why_not"}); !p.empty()) return "verdict: " + p;
    for (const char* m : {"name", "why_not"})
      if (std::string p = text_problem(v.at(m), m); !p.empty()) return p;
    if (!v.at("accepted").is_boolean() || !v.at("unfit").is_boolean()) return "\"accepted\" and \"unfit\" must be true or false";
    if (v.at("accepted").get<bool>() && (v.at("unfit").get<bool>() || !v.at("why_not").get_ref<const std::string&>().empty()))
      return "an accepted verdict with a reason to reject it";
    return {};
  }
  if (j.contains("floors")) {
    // floors/COLLECTIVE/CANDIDATE (tune/waves.cpp)
    if (first_part(key) != "floors" || parts != 3 || !ir::collective_from_string(first_part(key.substr(7))))
      return fmt::format("floors key '{}' is not floors/COLLECTIVE/CANDIDATE", key);
    if (std::string p = members_problem(j, {"key", "floors"}); !p.empty()) return p;
    const nlohmann::json& floors = j.at("floors");
    if (!floors.is_array() || (!floors.empty() && floors.size() != sizes_.size()))
      return fmt::format("\"floors\" holds {} values where the tune has {} sizes (or none: no floor)",
                         floors.is_array() ? floors.size() : 0, sizes_.size());
    for (const nlohmann::json& ps : floors)
      if (std::string p = time_problem(ps, "a floor of", 0); !p.empty()) return p;
    return {};
  }
  // COLLECTIVE/CANDIDATE-or-NCCL/BYTES (tune/runner.cpp)
  const std::string_view bytes = last_part(key);
  const bool size_known = std::any_of(sizes_.begin(), sizes_.end(), [&](ByteCount b) { return std::to_string(b) == bytes; });
  if (parts != 3 || !ir::collective_from_string(first_part(key)) || !size_known)
    return fmt::format("result key '{}' is not COLLECTIVE/CANDIDATE/BYTES with one of the tune's sizes", key);
  if (std::string p = members_problem(j, {"key", "ps"}, {"error"}); !p.empty()) return p;
  if (j.contains("error"))
    if (std::string p = text_problem(j.at("error"), "error"); !p.empty()) return p;
  const bool nccl = key.substr(key.find('/') + 1, 5) == "NCCL/";
  if (j.at("ps").is_null()) return nccl ? "NCCL's result has no time (\"ps\": null)" : "";
  if (j.contains("error")) return "a result with both a time and an error";
  return time_problem(j.at("ps"), "time", 1);
}

std::string checkpoint_file_name(int rank) {
  return rank == 0 ? "checkpoint.jsonl" : fmt::format("checkpoint.rank{}.jsonl", rank);
}

CheckpointJournal open_tune_journal(const topo::Topology& topo, const TuneOptions& options, const sim::SimParams& params) {
  std::filesystem::create_directories(options.out_dir);
  const int rank = options.share ? options.share->rank() : 0;
  return CheckpointJournal(options.out_dir / checkpoint_file_name(rank), fingerprint(topo, options, params), options.resume,
                           options.sizes);
}

std::string CheckpointJournal::finished_line() { return std::string(kFinishedLine) + "\n"; }

CheckpointJournal::CheckpointJournal(std::filesystem::path path, std::string fingerprint, bool resume, std::vector<ByteCount> sizes)
    : path_(std::move(path)), fingerprint_(std::move(fingerprint)), sizes_(std::move(sizes)) {
  if (resume && std::filesystem::exists(path_)) {
    load();
  } else {
    if (!resume) refuse_unfinished();
    write_file_atomically(path_, header_line(fingerprint_));
  }
  out_.open(path_, std::ios::app);
  if (!out_) throw DiagError(Diag{{path_.string(), 0}, "cannot append to the checkpoint", "check that the directory is writable"});
}

void CheckpointJournal::refuse_unfinished() const {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0) return;  // none
  check_replaceable(path_);
  const std::string text = read_file(path_);
  if (text.size() >= kFinishedLine.size() + 1 && text.ends_with(finished_line())) return;
  throw DiagError(Diag{{path_.string(), 0}, "holds the results of a tune that did not finish; not overwritten",
                       "continue it with --resume, or delete the file to start afresh"});
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
    std::string duplicate;
    const nlohmann::json j = parse_entry(line, duplicate);
    if (number == 1) {
      // Members are type-checked before they are read: a forged header is refused, never thrown at.
      const bool versioned = !j.is_discarded() && j.is_object() && j.contains("version") && j["version"].is_number_integer() &&
                             j["version"].get<std::int64_t>() == kFormatVersion;
      if (!versioned) throw fail("not a ccforge tune checkpoint");
      if (!j.contains("fingerprint") || !j["fingerprint"].is_string() || j["fingerprint"].get_ref<const std::string&>() != fingerprint_)
        throw fail("checkpoint was made by a tune with another topology, profile, dtype or size range");
      continue;
    }
    if (j.is_discarded() && last) break;  // torn by a kill mid-write: that task simply reruns
    if (last && line == kFinishedLine) break;
    if (j.is_discarded()) throw fail("malformed checkpoint entry: not JSON");
    if (!duplicate.empty()) throw fail(fmt::format("malformed checkpoint entry: \"{}\" appears twice", printable(duplicate)));
    if (const std::string problem = entry_problem(j); !problem.empty()) throw fail("malformed checkpoint entry: " + problem);
    if (!add(j)) throw fail(fmt::format("a second entry for '{}'", j.at("key").get<std::string>()));
    lines_[j.at("key").get<std::string>()] = number;
  }
  if (number == 0) throw fail("empty checkpoint");
  // Rewrite without a torn tail so that appended lines start on a fresh line.
  std::string rewritten = header_line(fingerprint_);
  for (const auto& [key, v] : verdicts_) rewritten += verdict_json(key, v).dump() + "\n";
  for (const auto& [key, f] : floors_) rewritten += floors_json(key, f).dump() + "\n";
  for (const auto& [key, t] : finished_) rewritten += sample_line(key, t);
  write_file_atomically(path_, rewritten);
}

DiagError CheckpointJournal::forged(const std::string& key, const std::string& problem) const {
  const auto at = lines_.find(key);
  return DiagError(Diag{{path_.string(), at == lines_.end() ? 0 : at->second}, problem,
                        "the checkpoint was altered: delete it or rerun without --resume"});
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
