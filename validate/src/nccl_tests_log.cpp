// Reads the text nccl-tests' *_perf programs print: '#' header lines, then per size one row with the
// out-of-place and in-place columns (size count type redop root | time algbw busbw #wrong | same).
#include <array>
#include <cmath>
#include <charconv>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

// nccl-tests program names (src/*.cu, built as <name>_perf) for the collectives ccforge models.
std::optional<ir::Collective> collective_of_program(std::string_view program) {
  constexpr std::array<std::pair<std::string_view, ir::Collective>, 8> kPrograms{{
      {"all_reduce_perf", ir::Collective::AllReduce},
      {"all_gather_perf", ir::Collective::AllGather},
      {"reduce_scatter_perf", ir::Collective::ReduceScatter},
      {"alltoall_perf", ir::Collective::AllToAll},
      {"broadcast_perf", ir::Collective::Broadcast},
      {"reduce_perf", ir::Collective::Reduce},
      {"gather_perf", ir::Collective::Gather},
      {"scatter_perf", ir::Collective::Scatter},
  }};
  for (const auto& [name, coll] : kPrograms)
    if (program == name) return coll;
  return std::nullopt;
}

[[noreturn]] void malformed(const std::string& file, int line, std::string problem, std::string fix) {
  throw DiagError(Diag{{file, line}, std::move(problem), std::move(fix)});
}

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

template <typename T>
T number(const std::string& word, const std::string& column, const std::string& file, int line) {
  T value{};
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size())
    malformed(file, line, "column '" + column + "' is '" + word + "', not a number", "use the unedited nccl-tests output");
  return value;
}

constexpr std::string_view kStartMarker = "Collective test starting:";
constexpr std::size_t kColumns = 13;  // size count type redop root + 2 x (time algbw busbw #wrong)

Measurement placement_run(const std::vector<std::string>& w, std::size_t first, bool inplace, const std::string& file, int line) {
  Measurement m;
  m.algorithm = "NCCL";
  m.size_bytes = number<ByteCount>(w[0], "size", file, line);
  m.count = number<std::size_t>(w[1], "count", file, line);
  m.type = w[2];
  m.redop = w[3];
  m.inplace = inplace;
  m.time_us = number<double>(w[first], "time", file, line);
  m.algbw_gbps = number<double>(w[first + 1], "algbw", file, line);
  m.busbw_gbps = number<double>(w[first + 2], "busbw", file, line);
  m.wrong = w[first + 3] == "N/A" ? -1 : number<std::int64_t>(w[first + 3], "#wrong", file, line);
  // from_chars reads "nan" and "inf": no run takes either.
  if (!std::isfinite(m.time_us) || m.time_us <= 0.0)
    malformed(file, line, "time " + w[first] + " is not a time", "allowed: finite and > 0; use the unedited nccl-tests output");
  for (const std::size_t column : {first + 1, first + 2})
    if (const double gbps = column == first + 1 ? m.algbw_gbps : m.busbw_gbps; !std::isfinite(gbps) || gbps < 0)
      malformed(file, line, (column == first + 1 ? "algbw " : "busbw ") + w[column] + " is not a bandwidth",
                "allowed: finite and >= 0; use the unedited nccl-tests output");
  if (m.wrong > 0) malformed(file, line, "#wrong is " + w[first + 3] + ": NCCL gave wrong results", "calibrate from a correct run");
  return m;
}

}  // namespace

std::vector<Measurement> read_nccl_tests_log(const std::filesystem::path& log, std::optional<ir::Collective> unnamed) {
  const std::string file = log.string();
  std::istringstream text(read_file(log));
  std::vector<Measurement> runs;
  std::optional<ir::Collective> collective = unnamed;  // until the log names its own
  int line_no = 0;
  for (std::string line; std::getline(text, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.find("NCCL INFO") != std::string::npos || line.find("NCCL WARN") != std::string::npos) continue;  // NCCL_DEBUG output
    // Banners printed without '#': NCCL's with NCCL_DEBUG=VERSION, rccl-tests' own.
    if (line.starts_with("NCCL version") || line.starts_with("rccl-tests:")) continue;
    if (line.front() == '#') {
      const auto at = line.find(kStartMarker);
      if (at != std::string::npos) {
        const auto words = split_words(line.substr(at + kStartMarker.size()));
        collective = words.empty() ? std::nullopt : collective_of_program(words[0]);
        if (!collective) malformed(file, line_no, "unknown nccl-tests program in '" + line + "'", "calibrate from all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf, gather_perf or scatter_perf");
      }
      continue;
    }
    const auto words = split_words(line);
    if (words.size() != kColumns)
      malformed(file, line_no, "expected 13 columns (size count type redop root, then time algbw busbw #wrong out-of-place and in-place), found " +
                                   std::to_string(words.size()),
                "use the unedited nccl-tests output");
    if (!collective)
      malformed(file, line_no, "no '# Collective test starting:' line before the first result",
                "give its collective with --coll, one collective, or add that line");
    for (const bool inplace : {false, true}) {
      Measurement m = placement_run(words, inplace ? 9 : 5, inplace, file, line_no);
      m.collective = ir::to_string(*collective);
      runs.push_back(std::move(m));
    }
  }
  if (runs.empty()) malformed(file, 0, "no result rows", "give an nccl-tests log or a ccforge measured.csv");
  return runs;
}

}  // namespace ccforge::validate
