// measured.csv (every run) and the measured selection table in tune's format.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/core.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/csv.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/output/selection_files.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

std::string measured_csv(const SweepResult& r) {
  std::string csv = "device,nranks,collective,algorithm,file,protocol,size_bytes,count,type,redop,placement,time_us,algbw_GBps,busbw_GBps,wrong,error\n";
  for (const Measurement& m : r.runs)
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{},{}\n", r.device, r.nranks, m.collective, csv_field(m.algorithm),
                       csv_field(m.file), m.protocol, m.size_bytes, m.count, m.type, m.redop, m.inplace ? "in-place" : "out-of-place",
                       m.time_us, m.algbw_gbps, m.busbw_gbps, m.wrong, csv_field(m.error));
  return csv;
}

// Per (collective, size): the fastest correct run of an algorithm that is correct at every size, and
// NCCL in the same placement. Without a correct algorithm the executor falls back to NCCL.
struct Fastest {
  output::SelectionRow row;
  std::optional<bool> inplace;  // the winning run's placement; none while NCCL serves
};

// selection.md's title and, after the tables, its list of broken files.
std::string selection_md_title(const SweepResult& r) {
  std::string md = fmt::format("# ccforge validate: measured on {} with {} ranks\n\n", r.device, r.nranks);
  md += r.device == "host"
            ? "Host runs have no NCCL: nccl_us and speedup are empty and host times say nothing about GPU speed; "
              "the table shows which algorithms are correct and their relative cost in threads.\n"
            : "nccl_us is NCCL measured through the same harness, in the placement of the winning algorithm.\n";
  return md;
}

std::string broken_section(const SweepResult& r) {
  std::string md = "\n## Broken (a wrong element or a failed run; never selected)\n\n";
  if (r.broken.empty()) md += "none\n";
  for (const std::string& f : r.broken) md += "- " + markdown_text(f) + "\n";
  return md;
}

}  // namespace

std::vector<output::SelectionRow> selection_rows(const SweepResult& r, const std::vector<TunedBound>& bounds) {
  std::map<std::tuple<std::string, ByteCount>, Fastest> fastest;
  std::map<std::tuple<std::string, ByteCount, bool>, double> nccl;
  for (const Measurement& m : r.runs) {
    if (m.file.empty()) {
      if (m.ok()) nccl[{m.collective, m.size_bytes, m.inplace}] = m.time_us;
      continue;
    }
    Fastest& f = fastest[{m.collective, m.size_bytes}];
    const bool broken = std::find(r.broken.begin(), r.broken.end(), m.file) != r.broken.end();
    if (broken || (f.row.best_us && *f.row.best_us <= m.time_us)) continue;
    f.row.best_us = m.time_us;
    f.row.algorithm = m.algorithm;
    f.row.protocol = ir::protocol_from_string(m.protocol);
    f.inplace = m.inplace;
  }
  for (const Measurement& m : r.runs) fastest.try_emplace({m.collective, m.size_bytes});
  std::vector<output::SelectionRow> rows;
  for (auto& [key, f] : fastest) {
    output::SelectionRow& row = f.row;
    row.collective = *ir::collective_from_string(std::get<0>(key));
    row.size_bytes = std::get<1>(key);
    const auto base = nccl.find({std::get<0>(key), row.size_bytes, f.inplace.value_or(false)});
    if (base != nccl.end()) row.nccl_us = base->second;
    if (!f.inplace) row.best_us = row.nccl_us;
    // Host times are CPU thread times: a percentage of a GPU bound would mean nothing.
    if (r.device != "host")
      for (const TunedBound& b : bounds)
        if (b.collective == std::get<0>(key) && b.size_bytes == row.size_bytes) row.lower_bound_us = b.bound_us;
    rows.push_back(row);
  }
  return rows;
}

void write_sweep_outputs(const SweepResult& result, const std::vector<TunedBound>& bounds, const std::filesystem::path& dir) {
  write_file_atomically(dir / "measured.csv", measured_csv(result));
  const std::vector<output::SelectionRow> rows = selection_rows(result, bounds);
  output::write_selection_files(dir, rows, selection_md_title(result), broken_section(result));
}

}  // namespace ccforge::validate
