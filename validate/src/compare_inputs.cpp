// The inputs of `ccforge compare`: a tune or validate output folder (its selection.csv), a selection.csv,
// or a `ccforge sim --format csv` file, each read into times per collective and size.
#include "ccforge/validate/compare.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/csv.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/output/selection_table.hpp"

namespace ccforge::validate {
namespace {

constexpr const char* kInputsFix = "give two tune or validate output folders, or two `ccforge sim --format csv` files";

// Each collective x size once: a second row for one would make the comparison ambiguous.
void check_unique(std::set<std::pair<std::string, ByteCount>>& seen, const TimedPoint& p, const std::string& file, int line) {
  if (!seen.emplace(p.collective, p.size_bytes).second)
    fail_at(file, line, fmt::format("{} {} appears twice", p.collective.empty() ? "size" : p.collective, p.size_bytes),
            "keep one row per collective and size");
}

std::optional<std::size_t> column(const std::vector<std::string>& header, const char* name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

// A finite number, > 0 or, where `zero_ok`, >= 0.
double number_cell(const std::string& text, const char* column, const char* noun, const char* fix, bool zero_ok, const std::string& file,
                   int line) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(value) || value < 0 || (value == 0 && !zero_ok))
    fail_at(file, line, fmt::format("{} '{}' is not a {}", column, text, noun), fix);
  return value;
}

// No collective takes 0 us: the runtimes' launch alone costs microseconds.
double time_cell(const std::string& text, const std::string& file, int line) {
  return number_cell(text, "time_us", "time", "a finite number of microseconds > 0", false, file, line);
}

// 1 byte in 5 us prints as 0.000 GB/s.
double bandwidth_cell(const std::string& text, const char* column, const std::string& file, int line) {
  return number_cell(text, column, "bandwidth", "a finite number of GB/s >= 0", true, file, line);
}

ByteCount size_cell(const std::string& text, const std::string& file, int line) {
  const bool digits = !text.empty() && text.size() <= 19 && text.find_first_not_of("0123456789") == std::string::npos;
  const ByteCount value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (value == 0) fail_at(file, line, fmt::format("size_bytes '{}' is not a size", text), "a whole number of bytes > 0");
  return value;
}

// The machine a tune's report.json names ("topology"), less a what-if's " (fail nic:...)".
std::string tuned_machine(const std::filesystem::path& report) {
  const nlohmann::json json = nlohmann::json::parse(read_file(report), nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("topology") || !json["topology"].is_string())
    fail_at(report.string(), 0, "not a tune report: no \"topology\" string", "give the folder ccforge tune wrote, unedited");
  const std::string topology = json["topology"].get<std::string>();
  return topology.substr(0, topology.find(" ("));
}

}  // namespace

TimedTable parse_selection_csv(const std::string& text, const std::string& file) {
  TimedTable table{file, TableKind::Selection, {}, {}, {}};
  std::set<std::pair<std::string, ByteCount>> seen;
  int line = 1;  // read_selection_csv keeps no blank lines: row i is on line i + 2
  for (const output::SelectionRow& row : output::read_selection_csv(text, file)) {
    ++line;
    if (!row.best_us) fail_at(file, line, "best_us is empty", "compare tables whose every row has a time");
    if (!std::isfinite(*row.best_us) || *row.best_us <= 0)
      fail_at(file, line, fmt::format("best_us {} is not a time", *row.best_us), "a finite number of microseconds > 0");
    TimedPoint p{ir::to_string(row.collective), row.size_bytes, *row.best_us, row.algorithm};
    if (row.algorithm == "NCCL" && row.nccl)
      p.winner = fmt::format("NCCL {}/{}", ir::to_string(row.nccl->algo), ir::to_string(row.nccl->proto));
    check_unique(seen, p, file, line);
    table.points.push_back(std::move(p));
  }
  return table;
}

TimedTable parse_sim_csv(const std::string& text, const std::string& file) {
  TimedTable table{file, TableKind::SimCsv, {}, {}, {}};
  std::set<std::pair<std::string, ByteCount>> seen;
  std::istringstream in(text);
  std::vector<std::string> header;
  std::optional<std::size_t> size_at, time_at, algorithm_at, collective_at, algbw_at, busbw_at;
  double widest_algbw = 0;  // the bus factor is taken from the row with the most digits
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty() || line.starts_with("#")) continue;
    const std::vector<std::string> f = csv_fields(line);
    if (header.empty()) {
      header = f;
      size_at = column(header, "size_bytes");
      time_at = column(header, "time_us");
      algorithm_at = column(header, "algorithm");
      collective_at = column(header, "collective");
      algbw_at = column(header, "algbw_gbs");
      busbw_at = column(header, "busbw_gbs");
      if (!size_at || !time_at || !algorithm_at)
        fail_at(file, number, "not a sim CSV header (size_bytes,...,time_us,...,algorithm)", kInputsFix);
      continue;
    }
    if (f.size() != header.size()) fail_at(file, number, fmt::format("{} fields where the header has {}", f.size(), header.size()), kInputsFix);
    TimedPoint p{collective_at ? f[*collective_at] : "", size_cell(f[*size_at], file, number), time_cell(f[*time_at], file, number),
                 f[*algorithm_at]};
    check_unique(seen, p, file, number);
    table.points.push_back(std::move(p));
    // One collective per file: several (a `collective` column) have several factors.
    if (algbw_at && busbw_at && !collective_at) {
      const double algbw = bandwidth_cell(f[*algbw_at], "algbw_gbs", file, number);
      const double busbw = bandwidth_cell(f[*busbw_at], "busbw_gbs", file, number);
      if (algbw > widest_algbw && std::isfinite(busbw / algbw)) {
        widest_algbw = algbw;
        table.bus_factor = busbw / algbw;
      }
    }
  }
  if (header.empty()) fail_at(file, number, "no header and no rows", kInputsFix);
  return table;
}

TimedTable read_timed_table(const std::filesystem::path& path) {
  std::error_code error;
  const bool folder = std::filesystem::is_directory(path, error);
  const std::filesystem::path file = folder ? path / "selection.csv" : path;
  if (folder && !std::filesystem::exists(file, error))
    fail_at(path.string(), 0, "no selection.csv in this folder", kInputsFix);
  const std::string text = read_file(file);
  // A selection table starts with its header; a sim CSV may carry '#' lines first.
  if (!text.starts_with("collective,size_bytes,nccl_us,best_us,")) return parse_sim_csv(text, file.string());
  TimedTable table = parse_selection_csv(text, file.string());
  if (folder && std::filesystem::exists(path / "report.json", error)) table.machine = tuned_machine(path / "report.json");
  return table;
}

}  // namespace ccforge::validate
