#include "output_dir.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

#include <fmt/core.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/output_path.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/output/tune_outputs.hpp"

namespace ccforge::output {

namespace {

namespace fs = std::filesystem;

// Everything a tune (and the tuner-table export) writes into its directory.
constexpr std::array<std::string_view, 12> kOwnEntries{
    "selection.csv", "selection.md", "bands.csv", "report.json",      "algorithms",      "algorithms-rooted",
    "candidates",    "DEPLOY.md",    "env.sh",    "checkpoint.jsonl", "nccl-tuner.conf", "plots"};

// checkpoint.rankR.jsonl: the journal of rank R > 0 of a tune shared among processes (checkpoint_file_name).
bool rank_checkpoint(const std::string& name) {
  constexpr std::string_view prefix = "checkpoint.rank", suffix = ".jsonl";
  if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() == prefix.size() + suffix.size()) return false;
  const std::string_view digits = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool own_entry(const std::string& name) {
  return std::find(kOwnEntries.begin(), kOwnEntries.end(), name) != kOwnEntries.end() || rank_checkpoint(name) ||
         name.find(".tmp.") != std::string::npos ||  // a write_file_atomically temporary of a killed run
         name.starts_with(kWriteProbePrefix);        // another rank's output check, under way or killed
}

bool tuned_now(const TuneReport& report, const std::string& collective) {
  return std::any_of(report.collectives.begin(), report.collectives.end(),
                     [&](const CollectiveReport& c) { return collective == ir::to_string(c.collective); });
}

// Lines of `text` whose first field (up to `separator`) is a carried collective: CSV rows, or the rules
// of nccl-tuner.conf (its header and comments never start with a collective's name).
std::vector<std::string> carried_rows(const std::string& text, const std::vector<std::string>& carried, char separator) {
  std::vector<std::string> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::string first = line.substr(0, line.find(separator));
    if (std::find(carried.begin(), carried.end(), first) != carried.end()) rows.push_back(line);
  }
  return rows;
}

nlohmann::json read_report(const fs::path& path) {
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw DiagError(Diag{{path.string(), 0}, std::string("not a ccforge tune report: ") + e.what(),
                         "pass --replace to drop the earlier tune, or use another --out"});
  }
}

// The report is read back, so untrusted: what the carry-over writes into DEPLOY.md and copies must be
// what a tune writes there.
[[noreturn]] void not_a_report(const fs::path& report, const std::string& problem) {
  throw DiagError(Diag{{report.string(), 0}, problem, "pass --replace to drop the earlier tune, or use another --out"});
}

std::string carried_collective(const nlohmann::json& entry, const fs::path& report) {
  const nlohmann::json collective = entry.value("collective", nlohmann::json());
  if (!collective.is_string() || !ir::collective_from_string(collective.get<std::string>()))
    not_a_report(report, fmt::format("a collective entry names no known collective ({})", printable(collective.dump())));
  return collective.get<std::string>();
}

// A band's exported file, relative to `dir`: a regular file under algorithms/ or algorithms-rooted/, and
// not through a link or "..", so that the carry-over copies only the earlier tune's own files.
std::string carried_file(const nlohmann::json& band, const char* key, const fs::path& dir, const fs::path& report) {
  const nlohmann::json value = band.is_object() ? band.value(key, nlohmann::json("")) : nlohmann::json();
  if (!value.is_string()) not_a_report(report, fmt::format("a band's \"{}\" is not a file name", key));
  const std::string file = value.get<std::string>();
  if (file.empty()) return file;
  const fs::path path(file);
  const std::string top = path.begin()->string();
  const bool inside = path.is_relative() && (top == "algorithms" || top == "algorithms-rooted") &&
                      std::none_of(path.begin(), path.end(), [](const fs::path& part) { return part == ".."; });
  if (!inside || !fs::is_regular_file(fs::symlink_status(dir / path)))
    not_a_report(report, fmt::format("band file '{}' is not a regular file under algorithms/ of this folder", printable(file)));
  return file;
}

}  // namespace

void check_output_dir(const fs::path& dir) {
  // The swap (replace_directory) would put a directory in the link's place.
  if (fs::is_symlink(fs::symlink_status(dir)))
    throw DiagError(Diag{{dir.string(), 0}, "is a symbolic link; a tune replaces its --out directory as a whole, link included",
                         "give the link's target as --out"});
  if (!fs::exists(dir)) return;
  if (!fs::is_directory(dir)) throw DiagError(Diag{{dir.string(), 0}, "--out is not a directory", "name a directory"});
  std::vector<std::string> foreign;
  for (const auto& entry : fs::directory_iterator(dir))
    if (!own_entry(entry.path().filename().string())) foreign.push_back(entry.path().filename().string());
  if (foreign.empty()) return;
  std::sort(foreign.begin(), foreign.end());
  throw DiagError(Diag{{dir.string(), 0},
                       fmt::format("holds {} entr{} a tune does not write (first: {}); the tune replaces the directory "
                                   "as a whole",
                                   foreign.size(), foreign.size() == 1 ? "y" : "ies", foreign.front()),
                       "use an empty or new --out directory"});
}

CarryOver read_carry_over(const fs::path& dir, const TuneReport& report) {
  CarryOver carry;
  const fs::path report_path = dir / "report.json";
  if (!fs::exists(report_path)) return carry;
  const nlohmann::json old = read_report(report_path);
  const nlohmann::json collectives = old.value("collectives", nlohmann::json::array());
  std::vector<const nlohmann::json*> entries;
  for (const nlohmann::json& entry : collectives)
    if (!tuned_now(report, entry.value("collective", ""))) entries.push_back(&entry);
  if (entries.empty()) return carry;
  const std::string old_topology = old.value("topology", "");
  const std::string old_runtime = old.contains("runtime") ? old["runtime"].value("name", "") : "";
  if (old_topology != report.topology || old_runtime != ir::to_string(report.runtime)) {
    carry.replaced = fmt::format("the earlier tune in {} ({}, runtime {}) was replaced: its other collectives do not "
                                 "belong to this machine and runtime",
                                 dir.string(), old_topology, old_runtime.empty() ? "unrecorded" : old_runtime);
    return carry;
  }
  for (const nlohmann::json* entry : entries) {
    carry.collectives.push_back(carried_collective(*entry, report_path));
    carry.report_entries.push_back(*entry);
    for (const nlohmann::json& band : entry->value("bands", nlohmann::json::array()))
      for (const char* key : {"file", "outofplace_file"})
        if (const std::string file = carried_file(band, key, dir, report_path); !file.empty()) carry.files.push_back(file);
  }
  for (SelectionRow& row : read_selection_csv(read_file(dir / "selection.csv"), (dir / "selection.csv").string()))
    if (std::find(carry.collectives.begin(), carry.collectives.end(), ir::to_string(row.collective)) != carry.collectives.end())
      carry.selection_rows.push_back(std::move(row));
  carry.band_rows = carried_rows(read_file(dir / "bands.csv"), carry.collectives, ',');
  if (fs::exists(dir / "nccl-tuner.conf"))
    carry.tuner_rules = carried_rows(read_file(dir / "nccl-tuner.conf"), carry.collectives, ' ');
  return carry;
}

}  // namespace ccforge::output
