#include "tune/outputs.hpp"

#include <set>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ccforge/common/atomic_file.hpp"

namespace ccforge::search {

namespace {

struct Row {
  std::string collective, algorithm, protocol;
  ByteCount bytes;
  double nccl_us, best_us, speedup, lower_bound_pct;
};

// NCCL labels look like "nccl:ring:LL"; the protocol is the last field.
std::string protocol_of_label(const std::string& label) {
  const auto colon = label.rfind(':');
  return colon == std::string::npos ? label : label.substr(colon + 1);
}

std::vector<Row> rows_of(const CollectiveTune& ct) {
  std::vector<Row> rows;
  for (std::size_t s = 0; s < ct.choices.size(); ++s) {
    const Choice& c = ct.choices[s];
    Row r{ir::to_string(ct.collective), "NCCL", protocol_of_label(ct.sizes[s].nccl_algorithm), c.bytes,
          c.nccl.us(), c.best.us(), c.nccl.us() / c.best.us(), 100.0 * c.lower_bound.us() / c.best.us()};
    if (c.winner >= 0) {
      const Candidate& cand = ct.candidates.accepted[static_cast<std::size_t>(c.winner)];
      r.algorithm = cand.name;
      r.protocol = ir::to_string(cand.request.protocol);
    }
    rows.push_back(r);
  }
  return rows;
}

std::string csv_line(const Row& r) {
  return fmt::format("{},{},{:.3f},{:.3f},{:.3f},{},{},{:.1f}", r.collective, r.bytes, r.nccl_us, r.best_us, r.speedup,
                     r.algorithm, r.protocol, r.lower_bound_pct);
}

std::string selection_md(const TuneResult& result) {
  std::string md = fmt::format("# ccforge tune: {}\n", result.topology);
  for (const CollectiveTune& ct : result.collectives) {
    md += fmt::format("\n## {}\n\n| size | NCCL us | best us | speedup | algorithm | protocol | % of bound |\n"
                      "|---:|---:|---:|---:|---|---|---:|\n", ir::to_string(ct.collective));
    for (const Row& r : rows_of(ct))
      md += fmt::format("| {} | {:.2f} | {:.2f} | {:.2f}x | {} | {} | {:.1f} |\n", format_size(r.bytes), r.nccl_us, r.best_us,
                        r.speedup, r.algorithm, r.protocol, r.lower_bound_pct);
  }
  return md;
}

std::string bands_csv(const TuneResult& result) {
  std::string csv = "collective,min_bytes,max_bytes,algorithm,file\n";
  for (const CollectiveTune& ct : result.collectives)
    for (const Band& b : ct.bands)
      csv += fmt::format("{},{},{},{},{}\n", ir::to_string(ct.collective), b.min_bytes, b.max_bytes,
                         b.winner < 0 ? "NCCL" : ct.candidates.accepted[static_cast<std::size_t>(b.winner)].name, b.file);
  return csv;
}

// Files of an earlier tune in `folder` that this one did not write.
void remove_stale(const std::filesystem::path& folder, const std::set<std::filesystem::path>& written) {
  if (!std::filesystem::exists(folder)) return;
  std::vector<std::filesystem::path> stale;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (!written.count(entry.path())) stale.push_back(entry.path());
  for (const auto& path : stale) std::filesystem::remove(path);
}

// One XML per MSCCL band; stale files of an earlier tune are removed so that MSCCL_ALGO_DIR holds
// exactly this tune's selection.
void write_algorithms(const TuneResult& result, const std::filesystem::path& dir) {
  std::set<std::filesystem::path> written;
  for (const CollectiveTune& ct : result.collectives)
    for (const Band& b : ct.bands) {
      if (b.winner < 0) continue;
      ir::Algorithm algo = ct.candidates.accepted[static_cast<std::size_t>(b.winner)].algorithm;
      // Bands are in nccl-tests sizes; the executor compares its nBytes (size / ngpus for gather and scatter).
      algo.min_bytes = ir::executor_bytes_at_least(algo.collective, algo.ngpus, b.min_bytes);
      algo.max_bytes = ir::executor_bytes(algo.collective, algo.ngpus, b.max_bytes);
      ir::write_msccl_xml(algo, dir / b.file);
      written.insert(dir / b.file);
    }
  remove_stale(dir / "algorithms", written);
}

// Every candidate that passed the checker, without a size band, for validating each generator's
// output on its own (never an MSCCL_ALGO_DIR: all bands overlap). The index keeps names unique where
// two candidates differ only in inputs the name does not show (tree sets).
void write_candidates(const TuneResult& result, const std::filesystem::path& dir) {
  std::set<std::filesystem::path> written;
  for (const CollectiveTune& ct : result.collectives)
    for (std::size_t i = 0; i < ct.candidates.accepted.size(); ++i) {
      const Candidate& c = ct.candidates.accepted[i];
      const auto path = dir / "candidates" / fmt::format("{}_{:03}_{}.xml", ir::to_string(ct.collective), i, c.name);
      ir::write_msccl_xml(c.algorithm, path);
      written.insert(path);
    }
  remove_stale(dir / "candidates", written);
}

nlohmann::json candidates_json(const CollectiveTune& ct) {
  nlohmann::json tried = nlohmann::json::array(), rejected = nlohmann::json::array();
  for (const Candidate& c : ct.candidates.accepted)
    tried.push_back({{"name", c.name}, {"generator", c.generator}, {"protocol", ir::to_string(c.request.protocol)},
                     {"channels", c.request.channels}, {"instances", c.request.instances}, {"chunks", c.request.chunks}});
  for (const Rejection& r : ct.candidates.rejected) rejected.push_back({{"name", r.name}, {"reason", r.reason}});
  return {{"accepted", tried}, {"rejected", rejected}};
}

nlohmann::json sizes_json(const CollectiveTune& ct) {
  nlohmann::json sizes = nlohmann::json::array();
  for (std::size_t s = 0; s < ct.sizes.size(); ++s) {
    const SizeResult& r = ct.sizes[s];
    nlohmann::json times = nlohmann::json::array();
    for (const auto& t : r.times) times.push_back(t ? nlohmann::json(t->us()) : nlohmann::json(nullptr));
    sizes.push_back({{"bytes", r.bytes}, {"nccl_us", r.nccl.us()}, {"nccl_algorithm", r.nccl_algorithm},
                     {"lower_bound_us", r.lower_bound.us()}, {"best_us", ct.choices[s].best.us()},
                     {"winner", ct.choices[s].winner}, {"candidate_us", times}});
  }
  return sizes;
}

std::string report_json(const TuneResult& result, const TuneOptions& options) {
  nlohmann::json colls = nlohmann::json::array();
  for (const CollectiveTune& ct : result.collectives) {
    nlohmann::json bands = nlohmann::json::array();
    for (const Band& b : ct.bands)
      bands.push_back({{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"winner", b.winner}, {"file", b.file}});
    colls.push_back({{"collective", ir::to_string(ct.collective)}, {"candidates", candidates_json(ct)},
                     {"sizes", sizes_json(ct)}, {"bands", bands}});
  }
  const nlohmann::json report{
      {"topology", result.topology},
      {"options", {{"sizes", options.sizes}, {"min_gain", options.min_gain}, {"dtype", to_string(options.dtype)}}},
      {"simulations", result.simulations},
      {"pruned", result.pruned},
      {"pruned_by", {{"floor_above_best", result.pruned_above_best},
                     {"floor_below_nccl_gain", result.pruned - result.pruned_above_best},
                     {"only_with_time_floor", result.pruned_by_time_floor_only}}},
      {"collectives", colls},
      // The only member that differs between identical runs.
      {"timing", {{"elapsed_s", result.elapsed_s}, {"candidates_s", result.candidates_s}, {"jobs", options.jobs}, {"resumed_tasks", result.resumed_tasks}}}};
  return report.dump(1) + "\n";
}

}  // namespace

std::vector<std::string> selection_csv_lines(const TuneResult& result) {
  std::vector<std::string> lines{"collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct"};
  for (const CollectiveTune& ct : result.collectives)
    for (const Row& r : rows_of(ct)) lines.push_back(csv_line(r));
  return lines;
}

void write_outputs(const TuneResult& result, const TuneOptions& options) {
  const auto& dir = options.out_dir;
  std::string csv;
  for (const std::string& line : selection_csv_lines(result)) csv += line + "\n";
  write_algorithms(result, dir);
  if (options.write_candidates) write_candidates(result, dir);
  write_file_atomically(dir / "selection.csv", csv);
  write_file_atomically(dir / "selection.md", selection_md(result));
  write_file_atomically(dir / "bands.csv", bands_csv(result));
  write_file_atomically(dir / "report.json", report_json(result, options));
}

}  // namespace ccforge::search
