#include "ccforge/output/tune_outputs.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/core.h>
#include <tbb/parallel_for.h>

#include "ccforge/common/atomic_dir.hpp"
#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/csv.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/output/selection_files.hpp"
#include "deploy_notes.hpp"
#include "nccl_space_outputs.hpp"
#include "output_dir.hpp"
#include "report_json.hpp"

namespace ccforge::output {

namespace {

// The selection table's title; its rows, a section per collective, follow (selection_markdown).
std::string selection_md_title(const TuneReport& report) {
  return fmt::format("# ccforge tune: {}\n\nexpected error %: how far the winner's predicted speedup over NCCL was off "
                     "where measured (search/expected_error.hpp); NCCL is kept unless the speedup beats NCCL by the "
                     "minimum gain once discounted by it.\n",
                     markdown_text(report.topology));
}

constexpr const char* kBandsHeader = "collective,min_bytes,max_bytes,algorithm,file,outofplace_file,note";

std::vector<std::string> band_lines(const TuneReport& report) {
  std::vector<std::string> lines;
  for (const CollectiveReport& ct : report.collectives)
    for (const TuneBand& b : ct.bands)
      lines.push_back(fmt::format("{},{},{},{},{},{},{}", ir::to_string(ct.collective), b.min_bytes, b.max_bytes,
                                  b.winner < 0 ? "NCCL" : ct.candidates[static_cast<std::size_t>(b.winner)].name,
                                  b.file, b.outofplace_file, csv_field(b.note)));
  return lines;
}

// Bands are in nccl-tests sizes; the executor compares its nBytes (size / ngpus for gather and scatter).
void write_band_file(ir::Algorithm algo, const TuneBand& b, const std::filesystem::path& path) {
  algo.min_bytes = ir::executor_bytes_at_least(algo.collective, algo.ngpus, b.min_bytes);
  algo.max_bytes = ir::executor_bytes(algo.collective, algo.ngpus, b.max_bytes);
  ir::write_msccl_xml(algo, path);
}

// The exported files: the winner per band and its out-of-place variant, written in parallel (ndv5-x16's
// 300 MB of XML took ~3 s CPU on one thread after the last phase).
void write_algorithms(const TuneReport& report, const std::filesystem::path& dir) {
  struct File {
    const ir::Algorithm* algo;
    const TuneBand* band;
    const std::string* name;
  };
  std::vector<File> files;
  for (const CollectiveReport& ct : report.collectives)
    for (const TuneBand& b : ct.bands) {
      if (b.file.empty()) continue;
      files.push_back({ct.candidates[static_cast<std::size_t>(b.winner)].algorithm, &b, &b.file});
      if (b.outofplace) files.push_back({b.outofplace, &b, &b.outofplace_file});
    }
  tbb::parallel_for(std::size_t{0}, files.size(),
                    [&](std::size_t i) { write_band_file(*files[i].algo, *files[i].band, dir / *files[i].name); });
}

// Every candidate that passed the checker, without a size band, for validating each generator's
// output on its own (never an MSCCL_ALGO_DIR: all bands overlap). The index keeps names unique where
// two candidates differ only in inputs the name does not show (tree sets).
void write_candidates(const TuneReport& report, const std::filesystem::path& dir) {
  for (const CollectiveReport& ct : report.collectives)
    for (std::size_t i = 0; i < ct.candidates.size(); ++i) {
      const TuneCandidate& c = ct.candidates[i];
      ir::write_msccl_xml(*c.algorithm, dir / "candidates" / fmt::format("{}_{:03}_{}.xml", ir::to_string(ct.collective), i, c.name));
    }
}

}  // namespace

WrittenTune write_tune_outputs(const TuneReport& report, const PlotWriter& plots) {
  namespace fs = std::filesystem;
  const TuneRequest& request = report.request;
  const fs::path& dir = request.out_dir;
  const CarryOver carried = request.replace ? CarryOver{} : read_carry_over(dir, report);
  const fs::path staging = staging_directory(dir);
  try {
    write_algorithms(report, staging);
    if (request.write_candidates) write_candidates(report, staging);
    for (const std::string& file : carried.files) {
      fs::create_directories((staging / file).parent_path());
      fs::copy_file(dir / file, staging / file);
    }
    std::vector<SelectionRow> rows = report.rows;
    rows.insert(rows.end(), carried.selection_rows.begin(), carried.selection_rows.end());
    std::string bands = std::string(kBandsHeader) + "\n";
    for (const std::string& line : band_lines(report)) bands += line + "\n";
    for (const std::string& line : carried.band_rows) bands += line + "\n";
    write_selection_files(staging, rows, selection_md_title(report), nccl_space_markdown(report));
    if (report.nccl_space_searched) {
      std::string conf = nccl_tuner_conf(report);
      for (const std::string& rule : carried.tuner_rules) conf += rule + "\n";
      write_file_atomically(staging / "nccl-tuner.conf", conf);
    }
    write_file_atomically(staging / "bands.csv", bands);
    if (plots) plots(rows, report.ranks, report.topology, staging);
    write_file_atomically(staging / "report.json", report_json(report, carried));
    write_file_atomically(staging / "DEPLOY.md", deploy_md(report, carried.collectives));
    write_file_atomically(staging / "env.sh", env_sh(report));
    // Kept marked finished: a later tune may then start afresh here, but not over an unfinished one.
    for (const std::string& name : report.journals)
      if (fs::exists(dir / name)) {
        fs::copy_file(dir / name, staging / name);
        std::ofstream marked(staging / name, std::ios::app);
        if (!(marked << report.finished_line << std::flush))
          throw DiagError(Diag{{(dir / name).string(), 0}, "cannot mark the checkpoint finished", "check that the disk is not full"});
      }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
  replace_directory(staging, dir);
  return {carried.collectives, carried.replaced};
}

}  // namespace ccforge::output
