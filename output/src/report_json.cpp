#include "report_json.hpp"

#include <algorithm>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "nccl_space_outputs.hpp"

namespace ccforge::output {

namespace {

nlohmann::json candidates_json(const CollectiveReport& ct) {
  nlohmann::json tried = nlohmann::json::array(), rejected = nlohmann::json::array();
  for (const TuneCandidate& c : ct.candidates)
    tried.push_back({{"name", c.name}, {"generator", c.generator}, {"protocol", ir::to_string(c.protocol)},
                     {"channels", c.channels}, {"instances", c.instances}, {"chunks", c.chunks}});
  for (const TuneRejection& r : ct.rejected) rejected.push_back({{"name", r.name}, {"reason", r.reason}});
  return {{"accepted", tried}, {"rejected", rejected}};
}

nlohmann::json sizes_json(const CollectiveReport& ct) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const TuneSize& r : ct.sizes) {
    nlohmann::json times = nlohmann::json::array();
    for (const auto& t : r.candidate_us) times.push_back(t ? nlohmann::json(*t) : nlohmann::json(nullptr));
    sizes.push_back({{"bytes", r.bytes}, {"nccl_us", r.nccl_us}, {"nccl_algorithm", r.nccl_algorithm},
                     {"lower_bound_us", r.lower_bound_us}, {"best_us", r.best_us},
                     {"winner", r.winner}, {"candidate_us", times}});
  }
  return sizes;
}

// A winning band's expected error; a band resting on an unmeasured cell is also listed in `unmeasured`.
void add_expected_error(nlohmann::json& band, const CollectiveReport& ct, const TuneBand& b, nlohmann::json& unmeasured) {
  const BandError error = b.error.value_or(BandError{});
  band["expected_error_pct"] = error.pct;
  band["error_measured"] = error.measured;
  band["error_sources"] = error.sources;
  if (!error.measured)
    unmeasured.push_back(fmt::format("{} {}..{} {}", ir::to_string(ct.collective), format_size(b.min_bytes), format_size(b.max_bytes),
                                     ct.candidates[static_cast<std::size_t>(b.winner)].name));
}

// Wall and CPU seconds and the peak resident memory per phase, and the whole tune's; with the work
// shared among processes, per process of the job (rank order) too: the phases are rank 0's.
nlohmann::json timing_json(const TuneReport& report) {
  nlohmann::json processes = nlohmann::json::array();
  for (const ProcessUsage& p : report.processes)
    processes.push_back({{"cpu_s", p.cpu_s}, {"peak_rss_mib", p.peak_rss_mib}, {"simulations", p.simulations}, {"points_proven", p.points_proven}});
  nlohmann::json phases = nlohmann::json::array();
  double peak = 0;
  for (const PhaseTime& p : report.phases) {
    phases.push_back({{"phase", p.name}, {"wall_s", p.wall_s}, {"cpu_s", p.cpu_s}, {"peak_rss_mib", p.peak_rss_mib}});
    peak = std::max(peak, p.peak_rss_mib);
  }
  nlohmann::json slowest = nlohmann::json::array();
  for (const SlowSimulation& s : report.slowest)
    slowest.push_back({{"task", s.task}, {"wall_s", s.wall_s}, {"floor_us", s.floor.us()}, {"simulated_us", s.time.us()}});
  return {{"elapsed_s", report.elapsed_s}, {"candidates_s", report.candidates_s}, {"exports_s", report.exports_s},
          {"phases", phases}, {"peak_rss_mib", peak}, {"jobs", report.request.jobs}, {"resumed_tasks", report.resumed_tasks},
          {"points_proven", report.points_proven}, {"points_resumed", report.points_resumed},
          {"floors_resumed", report.floors_resumed}, {"world_size", std::max<std::size_t>(processes.size(), 1)},
          {"processes", processes}, {"slowest_simulations", slowest}};
}

}  // namespace

std::string report_json(const TuneReport& report, const CarryOver& carried) {
  const TuneRequest& request = report.request;
  nlohmann::json colls = nlohmann::json::array(), unmeasured = nlohmann::json::array();
  for (const CollectiveReport& ct : report.collectives) {
    nlohmann::json bands = nlohmann::json::array();
    for (const TuneBand& b : ct.bands) {
      nlohmann::json band{{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"winner", b.winner}, {"file", b.file},
                          {"outofplace_file", b.outofplace_file}, {"outofplace_us", b.outofplace_us}, {"note", b.note}};
      if (b.winner >= 0) add_expected_error(band, ct, b, unmeasured);
      bands.push_back(band);
    }
    colls.push_back({{"collective", ir::to_string(ct.collective)}, {"candidates", candidates_json(ct)},
                     {"rejected_by_runtime", ct.rejected_by_runtime}, {"sizes", sizes_json(ct)}, {"bands", bands},
                     {"nccl_space", nccl_space_json(ct)}});
  }
  for (const nlohmann::json& entry : carried.report_entries) colls.push_back(entry);
  nlohmann::json json{
      {"topology", report.topology},
      {"transport", report.transport.empty() ? nlohmann::json(nullptr) : nlohmann::json(report.transport)},
      {"runtime", {{"name", ir::to_string(report.runtime)}, {"multiprocessors", report.multiprocessors}}},
      {"carried_over", carried.collectives},
      {"options", {{"sizes", request.sizes}, {"min_gain", request.min_gain}, {"dtype", to_string(request.dtype)},
                   {"export_rooted", request.export_rooted}}},
      {"simulations", report.simulations},
      {"pruned", report.pruned},
      {"pruned_by", {{"floor_above_best", report.pruned_above_best},
                     {"floor_below_nccl_gain", report.pruned - report.pruned_above_best},
                     {"only_with_time_floor", report.pruned_by_time_floor_only}}},
      {"collectives", colls},
      // Winning bands whose expected error rests on no measurement (an unmeasured family, protocol, size
      // range or machine): their speedups are the least certain.
      {"unmeasured_bands", unmeasured},
      // The only member that differs between identical runs.
      {"timing", timing_json(report)}};
  if (request.metadata) json["metadata"] = to_json(*request.metadata);
  return json.dump(1) + "\n";
}

}  // namespace ccforge::output
