#include "tune/outputs.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>

#include "ccforge/common/atomic_dir.hpp"
#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/csv.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/plot/selection_chart.hpp"
#include "tune/checkpoint.hpp"
#include "tune/deploy_notes.hpp"
#include "tune/output_dir.hpp"
#include "tune/runtime_fit.hpp"
#include "tune/nccl_tuner_outputs.hpp"

namespace ccforge::search {

namespace {

// The selection table's title; its rows, a section per collective, follow (sim::selection_markdown).
std::string selection_md_title(const TuneResult& result) {
  return fmt::format("# ccforge tune: {}\n\nexpected error %: how far the winner's predicted speedup over NCCL was off "
                     "where measured (search/expected_error.hpp); NCCL is kept unless the speedup beats NCCL by the "
                     "minimum gain once discounted by it.\n",
                     markdown_text(result.topology));
}

constexpr const char* kBandsHeader = "collective,min_bytes,max_bytes,algorithm,file,outofplace_file,note";

std::vector<std::string> band_lines(const TuneResult& result) {
  std::vector<std::string> lines;
  for (const CollectiveTune& ct : result.collectives)
    for (const Band& b : ct.bands)
      lines.push_back(fmt::format("{},{},{},{},{},{},{}", ir::to_string(ct.collective), b.min_bytes, b.max_bytes,
                                  b.winner < 0 ? "NCCL" : ct.candidates.accepted[static_cast<std::size_t>(b.winner)].name,
                                  b.file, b.outofplace_file, csv_field(b.note)));
  return lines;
}

// Bands are in nccl-tests sizes; the executor compares its nBytes (size / ngpus for gather and scatter).
void write_band_file(ir::Algorithm algo, const Band& b, const std::filesystem::path& path) {
  algo.min_bytes = ir::executor_bytes_at_least(algo.collective, algo.ngpus, b.min_bytes);
  algo.max_bytes = ir::executor_bytes(algo.collective, algo.ngpus, b.max_bytes);
  ir::write_msccl_xml(algo, path);
}

// The exported files: the winner per band and its out-of-place variant, written in parallel (ndv5-x16's
// 300 MB of XML took ~3 s CPU on one thread after the last phase).
void write_algorithms(const TuneResult& result, const std::filesystem::path& dir) {
  struct File {
    const ir::Algorithm* algo;
    const Band* band;
    const std::string* name;
  };
  std::vector<File> files;
  for (const CollectiveTune& ct : result.collectives)
    for (const Band& b : ct.bands) {
      if (b.file.empty()) continue;
      files.push_back({&ct.candidates.accepted[static_cast<std::size_t>(b.winner)].algorithm, &b, &b.file});
      if (b.outofplace) files.push_back({&*b.outofplace, &b, &b.outofplace_file});
    }
  tbb::parallel_for(std::size_t{0}, files.size(),
                    [&](std::size_t i) { write_band_file(*files[i].algo, *files[i].band, dir / *files[i].name); });
}

// Every candidate that passed the checker, without a size band, for validating each generator's
// output on its own (never an MSCCL_ALGO_DIR: all bands overlap). The index keeps names unique where
// two candidates differ only in inputs the name does not show (tree sets).
void write_candidates(const TuneResult& result, const std::filesystem::path& dir) {
  for (const CollectiveTune& ct : result.collectives)
    for (std::size_t i = 0; i < ct.candidates.accepted.size(); ++i) {
      const Candidate& c = ct.candidates.accepted[i];
      ir::write_msccl_xml(c.algorithm, dir / "candidates" / fmt::format("{}_{:03}_{}.xml", ir::to_string(ct.collective), i, c.name));
    }
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
    sizes.push_back({{"bytes", r.bytes}, {"nccl_us", r.nccl.us()}, {"nccl_algorithm", r.nccl_choice.name()},
                     {"lower_bound_us", r.lower_bound.us()}, {"best_us", ct.choices[s].best.us()},
                     {"winner", ct.choices[s].winner}, {"candidate_us", times}});
  }
  return sizes;
}

// A winning band's expected error: the worst over its sizes, whether every size rests on a measured cell,
// and the cells' sources; a band resting on an unmeasured one is also listed in `unmeasured`.
void add_expected_error(nlohmann::json& band, const CollectiveTune& ct, const Band& b, nlohmann::json& unmeasured) {
  double worst = 0.0;
  bool measured = true;
  nlohmann::json sources = nlohmann::json::array();
  for (const Choice& c : ct.choices) {
    if (c.bytes < b.min_bytes || c.bytes > b.max_bytes) continue;
    worst = std::max(worst, c.error.pct);
    measured = measured && c.error.measured;
    if (std::find(sources.begin(), sources.end(), c.error.source) == sources.end()) sources.push_back(c.error.source);
  }
  band["expected_error_pct"] = worst;
  band["error_measured"] = measured;
  band["error_sources"] = sources;
  if (!measured)
    unmeasured.push_back(fmt::format("{} {}..{} {}", ir::to_string(ct.collective), format_size(b.min_bytes), format_size(b.max_bytes),
                                     ct.candidates.accepted[static_cast<std::size_t>(b.winner)].name));
}

// Wall and CPU seconds and the peak resident memory per phase, and the whole tune's; with the work
// shared (TuneOptions::share), per process of the job (rank order) too: the phases are rank 0's.
nlohmann::json timing_json(const TuneResult& result, const TuneOptions& options) {
  nlohmann::json processes = nlohmann::json::array();
  for (const ProcessUsage& p : result.processes)
    processes.push_back({{"cpu_s", p.cpu_s}, {"peak_rss_mib", p.peak_rss_mib}, {"simulations", p.simulations}, {"points_proven", p.points_proven}});
  nlohmann::json phases = nlohmann::json::array();
  double peak = 0;
  for (const PhaseTime& p : result.phases) {
    phases.push_back({{"phase", p.name}, {"wall_s", p.wall_s}, {"cpu_s", p.cpu_s}, {"peak_rss_mib", p.peak_rss_mib}});
    peak = std::max(peak, p.peak_rss_mib);
  }
  nlohmann::json slowest = nlohmann::json::array();
  for (const SlowSimulation& s : result.slowest)
    slowest.push_back({{"task", s.task}, {"wall_s", s.wall_s}, {"floor_us", s.floor.us()}, {"simulated_us", s.time.us()}});
  return {{"elapsed_s", result.elapsed_s}, {"candidates_s", result.candidates_s}, {"exports_s", result.exports_s},
          {"phases", phases}, {"peak_rss_mib", peak}, {"jobs", options.jobs}, {"resumed_tasks", result.resumed_tasks},
          {"points_proven", result.points_proven}, {"points_resumed", result.points_resumed},
          {"floors_resumed", result.floors_resumed}, {"world_size", std::max<std::size_t>(processes.size(), 1)},
          {"processes", processes}, {"slowest_simulations", slowest}};
}

std::string report_json(const TuneResult& result, const TuneOptions& options, const CarryOver& carried) {
  nlohmann::json colls = nlohmann::json::array(), unmeasured = nlohmann::json::array();
  for (const CollectiveTune& ct : result.collectives) {
    nlohmann::json bands = nlohmann::json::array();
    for (const Band& b : ct.bands) {
      nlohmann::json oop_us = nlohmann::json::array();
      for (SimTime t : b.outofplace_times) oop_us.push_back(t.us());
      nlohmann::json band{{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"winner", b.winner}, {"file", b.file},
                          {"outofplace_file", b.outofplace_file}, {"outofplace_us", oop_us}, {"note", b.note}};
      if (b.winner >= 0) add_expected_error(band, ct, b, unmeasured);
      bands.push_back(band);
    }
    const std::size_t unfit = runtime_rejections(ct.candidates);
    colls.push_back({{"collective", ir::to_string(ct.collective)}, {"candidates", candidates_json(ct)},
                     {"rejected_by_runtime", unfit}, {"sizes", sizes_json(ct)}, {"bands", bands},
                     {"nccl_space", nccl_space_json(ct.nccl_space, options.min_gain)}});
  }
  for (const nlohmann::json& entry : carried.report_entries) colls.push_back(entry);
  nlohmann::json report{
      {"topology", result.topology},
      {"transport", result.transport.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.transport)},
      {"runtime", {{"name", ir::to_string(result.target.runtime)}, {"multiprocessors", result.target.multiprocessors}}},
      {"carried_over", carried.collectives},
      {"options", {{"sizes", options.sizes}, {"min_gain", options.min_gain}, {"dtype", to_string(options.dtype)},
                   {"export_rooted", options.export_rooted}}},
      {"simulations", result.simulations},
      {"pruned", result.pruned},
      {"pruned_by", {{"floor_above_best", result.pruned_above_best},
                     {"floor_below_nccl_gain", result.pruned - result.pruned_above_best},
                     {"only_with_time_floor", result.pruned_by_time_floor_only}}},
      {"collectives", colls},
      // Winning bands whose expected error rests on no measurement (an unmeasured family, protocol, size
      // range or machine): their speedups are the least certain.
      {"unmeasured_bands", unmeasured},
      // The only member that differs between identical runs.
      {"timing", timing_json(result, options)}};
  if (options.metadata) report["metadata"] = to_json(*options.metadata);
  return report.dump(1) + "\n";
}

// plots/COLLECTIVE.svg: bus bandwidth against size for each collective in the table (carried-over ones
// too). SVG only: a PNG costs ~0.1 s a chart in cairo, which NDv5's 2 s tune target cannot afford.
void write_plots(const std::vector<sim::SelectionRow>& rows, const TuneResult& result, const std::filesystem::path& dir) {
  std::vector<ir::Collective> collectives;
  for (const sim::SelectionRow& r : rows)
    if (std::find(collectives.begin(), collectives.end(), r.collective) == collectives.end()) collectives.push_back(r.collective);
  if (collectives.empty()) return;
  std::filesystem::create_directories(dir / "plots");
  for (ir::Collective c : collectives)
    plot::write_chart(plot::selection_chart(rows, c, result.ranks, result.topology), dir / "plots" / (std::string(ir::to_string(c)) + ".svg"));
}

}  // namespace

std::vector<sim::SelectionRow> selection_rows(const TuneResult& result) {
  std::vector<sim::SelectionRow> rows;
  for (const CollectiveTune& ct : result.collectives)
    for (std::size_t s = 0; s < ct.choices.size(); ++s) {
      const Choice& c = ct.choices[s];
      const sim::NcclChoice& nccl = ct.sizes[s].nccl_choice;
      sim::SelectionRow r{ct.collective, c.bytes, c.nccl.us(), c.best.us(), "NCCL", nccl.proto, c.lower_bound.us(),
                          sim::NcclChoice{nccl.algo, nccl.proto, nccl.nchannels, 0.0}, std::nullopt};
      if (c.winner >= 0) {
        const Candidate& winner = ct.candidates.accepted[static_cast<std::size_t>(c.winner)];
        r.algorithm = winner.name;
        r.protocol = winner.request.protocol;
        r.expected_error_pct = c.error.pct;
      }
      rows.push_back(std::move(r));
    }
  return rows;
}

void write_outputs(TuneResult& result, const TuneOptions& options) {
  namespace fs = std::filesystem;
  const fs::path& dir = options.out_dir;
  const CarryOver carried = options.replace ? CarryOver{} : read_carry_over(dir, result);
  result.carried_over = carried.collectives;
  result.replaced = carried.replaced;
  const fs::path staging = staging_directory(dir);
  try {
    write_algorithms(result, staging);
    if (options.write_candidates) write_candidates(result, staging);
    for (const std::string& file : carried.files) {
      fs::create_directories((staging / file).parent_path());
      fs::copy_file(dir / file, staging / file);
    }
    std::vector<sim::SelectionRow> rows = selection_rows(result);
    rows.insert(rows.end(), carried.selection_rows.begin(), carried.selection_rows.end());
    std::string bands = std::string(kBandsHeader) + "\n";
    for (const std::string& line : band_lines(result)) bands += line + "\n";
    for (const std::string& line : carried.band_rows) bands += line + "\n";
    write_file_atomically(staging / "selection.csv", sim::selection_csv(rows));
    write_file_atomically(staging / "selection.md",
                          selection_md_title(result) + sim::selection_markdown(rows) + nccl_space_markdown(result, options.min_gain));
    if (result.nccl_space_searched) {
      std::string conf = nccl_tuner_conf(result, options.min_gain);
      for (const std::string& rule : carried.tuner_rules) conf += rule + "\n";
      write_file_atomically(staging / "nccl-tuner.conf", conf);
    }
    write_file_atomically(staging / "bands.csv", bands);
    write_plots(rows, result, staging);
    write_file_atomically(staging / "report.json", report_json(result, options, carried));
    write_file_atomically(staging / "DEPLOY.md", deploy_md(result, options, carried.collectives));
    write_file_atomically(staging / "env.sh", env_sh(result));
    // Kept marked finished: a later tune may then start afresh here, but not over an unfinished one.
    for (int rank = 0; rank < static_cast<int>(std::max<std::size_t>(result.processes.size(), 1)); ++rank)
      if (const std::string name = checkpoint_file_name(rank); fs::exists(dir / name)) {
        fs::copy_file(dir / name, staging / name);
        std::ofstream marked(staging / name, std::ios::app);
        if (!(marked << CheckpointJournal::finished_line() << std::flush))
          throw DiagError(Diag{{(dir / name).string(), 0}, "cannot mark the checkpoint finished", "check that the disk is not full"});
      }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
  replace_directory(staging, dir);
}

}  // namespace ccforge::search
