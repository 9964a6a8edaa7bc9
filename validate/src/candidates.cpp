// Algorithm directories (--algos DIR, --tuned DIR/algorithms) and tune's lower bounds.
#include <algorithm>
#include <iterator>
#include <sstream>
#include <string>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

std::vector<Candidate> load_algorithms(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw DiagError(Diag{{dir.string(), 0}, "not a directory", "pass a directory of MSCCL XML files"});
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".xml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // the executor's load order (formats.md §2.1)
  std::vector<Candidate> out;
  for (const fs::path& f : files) out.push_back(Candidate{ir::read_msccl_xml(f), f});
  return out;
}

std::vector<Candidate> load_tuned_algorithms(const std::filesystem::path& tune_dir) {
  namespace fs = std::filesystem;
  if (!fs::exists(tune_dir / "selection.csv"))
    throw DiagError(Diag{{tune_dir.string(), 0}, "not a tune output directory (no selection.csv)",
                         "pass the directory `ccforge tune --out` wrote"});
  std::vector<Candidate> out;
  for (const char* folder : {"algorithms", "algorithms-rooted"})
    if (fs::is_directory(tune_dir / folder)) {
      std::vector<Candidate> files = load_algorithms(tune_dir / folder);
      out.insert(out.end(), std::make_move_iterator(files.begin()), std::make_move_iterator(files.end()));
    }
  return out;
}

std::optional<int> common_rank_count(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) return std::nullopt;
  const int ranks = candidates.front().algorithm.ngpus;
  for (const Candidate& c : candidates)
    if (c.algorithm.ngpus != ranks) return std::nullopt;
  return ranks;
}

std::vector<TunedBound> read_tuned_bounds(const std::filesystem::path& selection_csv) {
  std::istringstream in(read_file(selection_csv));
  std::string line;
  std::getline(in, line);
  if (line.rfind("collective,size_bytes,nccl_us,best_us,speedup,algorithm,protocol,lower_bound_pct", 0) != 0)
    throw DiagError(Diag{{selection_csv.string(), 1}, "not a tune selection.csv header", "pass the directory `ccforge tune --out` wrote"});
  std::vector<TunedBound> out;
  for (int number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) f.push_back(cell);
    try {
      if (f.size() < 8) throw std::invalid_argument("fields");
      const double best = std::stod(f[3]), pct = std::stod(f[7]);
      out.push_back(TunedBound{f[0], std::stoull(f[1]), best * pct / 100.0});
    } catch (const std::exception&) {
      throw DiagError(Diag{{selection_csv.string(), number}, "malformed selection row", "expect 8 comma-separated fields with numbers"});
    }
  }
  return out;
}

}  // namespace ccforge::validate
