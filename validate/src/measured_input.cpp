// Reads ccforge's own measured.csv back (the calibration input written by `ccforge validate`) and picks
// the reader for a measured file by its first line.
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/csv.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

constexpr std::string_view kMeasuredHeader = "device,nranks,collective,algorithm,file,protocol,size_bytes";

double to_double(const std::string& text, const std::string& column, const std::string& file, int line) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // stod reads "nan" and "inf", which no measurement is.
  if (used == 0 || used != text.size() || !std::isfinite(value))
    throw DiagError(Diag{{file, line}, "column '" + column + "' is '" + text + "', not a finite number", "use measured.csv as ccforge validate wrote it"});
  return value;
}

}  // namespace

std::vector<Measurement> read_measured_csv(const std::filesystem::path& csv) {
  const std::string file = csv.string();
  std::istringstream text(read_file(csv));
  std::string line;
  std::getline(text, line);
  const std::vector<std::string> header = csv_fields(line);
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* need : {"collective", "algorithm", "file", "size_bytes", "type", "placement", "time_us", "wrong", "error"})
    if (!column.contains(need))
      throw DiagError(Diag{{file, 1}, std::string("measured.csv header lacks column '") + need + "'", "use measured.csv as ccforge validate wrote it"});
  std::vector<Measurement> runs;
  for (int line_no = 2; std::getline(text, line); ++line_no) {
    if (line.empty()) continue;
    const auto f = csv_fields(line);
    if (f.size() != header.size())
      throw DiagError(Diag{{file, line_no}, "expected " + std::to_string(header.size()) + " fields, found " + std::to_string(f.size()),
                           "use measured.csv as ccforge validate wrote it"});
    Measurement m;
    m.collective = f[column["collective"]];
    m.algorithm = f[column["algorithm"]];
    m.file = f[column["file"]];
    m.type = f[column["type"]];
    m.inplace = f[column["placement"]] == "in-place";
    m.size_bytes = static_cast<ByteCount>(to_double(f[column["size_bytes"]], "size_bytes", file, line_no));
    m.time_us = to_double(f[column["time_us"]], "time_us", file, line_no);
    if (m.time_us < 0)
      throw DiagError(Diag{{file, line_no}, "time_us " + f[column["time_us"]] + " is negative (allowed: >= 0; 0 marks a failed run)",
                           "use measured.csv as ccforge validate wrote it"});
    m.wrong = static_cast<std::int64_t>(to_double(f[column["wrong"]], "wrong", file, line_no));
    m.error = f[column["error"]];
    if (!ir::collective_from_string(m.collective))
      throw DiagError(Diag{{file, line_no}, "unknown collective '" + m.collective + "'", "allreduce, allgather, reducescatter, ..."});
    if (m.ok() && m.time_us > 0.0) runs.push_back(std::move(m));
  }
  if (runs.empty()) throw DiagError(Diag{{file, 0}, "no correct runs", "calibrate from a run with #wrong = 0"});
  return runs;
}

std::vector<Measurement> read_measurements(const std::filesystem::path& file, std::optional<ir::Collective> unnamed) {
  const std::string text = read_file(file);
  if (text.starts_with(kMeasuredHeader)) return read_measured_csv(file);
  return read_nccl_tests_log(file, unnamed);
}

std::vector<Measurement> runs_of_collectives(std::vector<Measurement> runs, const std::vector<ir::Collective>& collectives) {
  std::set<std::string> wanted, held;
  for (const ir::Collective c : collectives) wanted.insert(ir::to_string(c));
  for (const Measurement& m : runs) held.insert(m.collective);
  std::erase_if(runs, [&](const Measurement& m) { return !wanted.contains(m.collective); });
  if (runs.empty())
    throw DiagError(Diag{{"--coll", 0},
                         fmt::format("no measured run of {}", fmt::join(wanted, ", ")),
                         fmt::format("the files hold {}", fmt::join(held, ", "))});
  return runs;
}

}  // namespace ccforge::validate
