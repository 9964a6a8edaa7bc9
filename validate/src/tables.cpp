// measured.csv (every run) and the measured selection table in tune's format.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/core.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string measured_csv(const SweepResult& r) {
  std::string csv = "device,nranks,collective,algorithm,file,protocol,size_bytes,count,type,redop,placement,time_us,algbw_GBps,busbw_GBps,wrong,error\n";
  for (const Measurement& m : r.runs)
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{},{}\n", r.device, r.nranks, m.collective, csv_field(m.algorithm),
                       csv_field(m.file), m.protocol, m.size_bytes, m.count, m.type, m.redop, m.inplace ? "in-place" : "out-of-place",
                       m.time_us, m.algbw_gbps, m.busbw_gbps, m.wrong, csv_field(m.error));
  return csv;
}

struct Row {
  std::string collective;
  ByteCount size = 0;
  std::optional<double> nccl_us, best_us, bound_us;
  std::string algorithm = "NCCL", protocol;
};

// Per (collective, size): the fastest correct run of an algorithm that is correct at every size, and
// NCCL in the same placement. Without a correct algorithm the executor falls back to NCCL.
std::vector<Row> selection_rows(const SweepResult& r, const std::vector<TunedBound>& bounds) {
  std::map<std::tuple<std::string, ByteCount>, Row> rows;
  std::map<std::tuple<std::string, ByteCount, bool>, double> nccl;
  for (const Measurement& m : r.runs) {
    Row& row = rows[{m.collective, m.size_bytes}];
    row.collective = m.collective;
    row.size = m.size_bytes;
    if (m.file.empty()) {
      if (m.ok()) nccl[{m.collective, m.size_bytes, m.inplace}] = m.time_us;
      continue;
    }
    const bool broken = std::find(r.broken.begin(), r.broken.end(), m.file) != r.broken.end();
    if (broken || (row.best_us && *row.best_us <= m.time_us)) continue;
    row.best_us = m.time_us;
    row.algorithm = m.algorithm;
    row.protocol = m.protocol;
    const auto base = nccl.find({m.collective, m.size_bytes, m.inplace});
    row.nccl_us = base == nccl.end() ? std::nullopt : std::optional<double>(base->second);
  }
  std::vector<Row> out;
  for (auto& [key, row] : rows) {
    if (row.algorithm == "NCCL") {
      const auto base = nccl.find({row.collective, row.size, false});
      if (base != nccl.end()) row.nccl_us = row.best_us = base->second;
    }
    // Host times are CPU thread times: a percentage of a GPU bound would mean nothing.
    if (r.device != "host")
      for (const TunedBound& b : bounds)
        if (b.collective == row.collective && b.size_bytes == row.size) row.bound_us = b.bound_us;
    out.push_back(row);
  }
  return out;
}

std::string number(const std::optional<double>& v, const char* format = "{:.3f}") {
  return v ? fmt::format(fmt::runtime(format), *v) : "";
}

std::optional<double> ratio(const std::optional<double>& a, const std::optional<double>& b, double scale = 1.0) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return scale * *a / *b;
}

std::string selection_md(const SweepResult& r, const std::vector<TunedBound>& bounds) {
  std::string md = fmt::format("# ccforge validate: measured on {} with {} ranks\n\n", r.device, r.nranks);
  md += r.device == "host"
            ? "Host runs have no NCCL: nccl_us and speedup are empty and host times say nothing about GPU speed; "
              "the table shows which algorithms are correct and their relative cost in threads.\n"
            : "nccl_us is NCCL measured through the same harness, in the placement of the winning algorithm.\n";
  std::string current;
  for (const Row& row : selection_rows(r, bounds)) {
    if (row.collective != current) {
      current = row.collective;
      md += fmt::format("\n## {}\n\n| size | NCCL us | best us | speedup | algorithm | protocol | % of bound |\n"
                        "|---:|---:|---:|---:|---|---|---:|\n", current);
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", format_size(row.size), number(row.nccl_us, "{:.2f}"),
                      number(row.best_us, "{:.2f}"), number(ratio(row.nccl_us, row.best_us), "{:.2f}x"), row.algorithm,
                      row.protocol, number(ratio(row.bound_us, row.best_us, 100.0), "{:.1f}"));
  }
  md += "\n## Broken (a wrong element or a failed run; never selected)\n\n";
  if (r.broken.empty()) md += "none\n";
  for (const std::string& f : r.broken) md += "- " + f + "\n";
  return md;
}

}  // namespace

std::vector<std::string> selection_csv_lines(const SweepResult& r, const std::vector<TunedBound>& bounds) {
  std::vector<std::string> lines{"collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct"};
  for (const Row& row : selection_rows(r, bounds))
    lines.push_back(fmt::format("{},{},{},{},{},{},{},{}", row.collective, row.size, number(row.nccl_us), number(row.best_us),
                                number(ratio(row.nccl_us, row.best_us)), row.algorithm, row.protocol,
                                number(ratio(row.bound_us, row.best_us, 100.0), "{:.1f}")));
  return lines;
}

void write_sweep_outputs(const SweepResult& result, const std::vector<TunedBound>& bounds, const std::filesystem::path& dir) {
  write_file_atomically(dir / "measured.csv", measured_csv(result));
  std::string csv;
  for (const std::string& line : selection_csv_lines(result, bounds)) csv += line + "\n";
  write_file_atomically(dir / "selection.csv", csv);
  write_file_atomically(dir / "selection.md", selection_md(result, bounds));
}

}  // namespace ccforge::validate
