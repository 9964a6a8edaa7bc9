// The tune's result as the output part writes it (output/tune_report.hpp): values only, no files.
#include <algorithm>

#include "ccforge/output/nccl_space.hpp"
#include "ccforge/search/search.hpp"
#include "ccforge/sim/nccl_numbering.hpp"
#include "tune/checkpoint.hpp"
#include "tune/runtime_fit.hpp"

namespace ccforge::search {

namespace {

output::NcclPoint nccl_point(const sim::NcclPointTime& p) {
  return {p.point.algo, p.point.proto, p.point.nchannels, p.default_channels, p.time.us(), p.pruned, p.point.model_us};
}

output::NcclSpaceSize nccl_space_size(const sim::NcclExplanation& e, double min_gain) {
  output::NcclSpaceSize size{e.bytes, {}, e.best, 0.0, false, {}, {}};
  if (e.points.empty()) return size;
  for (const sim::NcclPointTime& p : e.points) size.points.push_back(nccl_point(p));
  size.gain = e.pick().time.us() / e.fastest().time.us() - 1;
  size.overridden = e.pick_loses(min_gain);
  size.pick_name = point_name(e.pick().point, true);
  size.fastest_name = point_name(e.fastest().point, e.fastest().default_channels);
  return size;
}

std::vector<output::NcclSpaceSize> nccl_space_sizes(const std::vector<sim::NcclExplanation>& explanations, double min_gain) {
  std::vector<output::NcclSpaceSize> sizes;
  for (const sim::NcclExplanation& e : explanations) sizes.push_back(nccl_space_size(e, min_gain));
  return sizes;
}

// A winning band's expected error: the worst over its sizes, whether every size rests on a measured cell,
// and the cells' sources.
output::BandError band_error(const CollectiveTune& ct, const Band& b) {
  output::BandError error;
  for (const Choice& c : ct.choices) {
    if (c.bytes < b.min_bytes || c.bytes > b.max_bytes) continue;
    error.pct = std::max(error.pct, c.error.pct);
    error.measured = error.measured && c.error.measured;
    if (std::find(error.sources.begin(), error.sources.end(), c.error.source) == error.sources.end())
      error.sources.push_back(c.error.source);
  }
  return error;
}

output::CollectiveReport collective_report(const CollectiveTune& ct, double min_gain) {
  output::CollectiveReport out;
  out.collective = ct.collective;
  for (const Candidate& c : ct.candidates.accepted)
    out.candidates.push_back({c.name, c.generator, c.request.protocol, c.request.channels, c.request.instances,
                              c.request.chunks, &c.algorithm});
  for (const Rejection& r : ct.candidates.rejected) out.rejected.push_back({r.name, r.reason});
  out.rejected_by_runtime = runtime_rejections(ct.candidates);
  for (std::size_t s = 0; s < ct.sizes.size(); ++s) {
    const SizeResult& r = ct.sizes[s];
    output::TuneSize size{r.bytes, r.nccl.us(), r.nccl_choice.name(), r.lower_bound.us(), ct.choices[s].best.us(),
                          ct.choices[s].winner, {}};
    for (const auto& t : r.times) size.candidate_us.push_back(t ? std::optional(t->us()) : std::nullopt);
    out.sizes.push_back(std::move(size));
  }
  for (const Band& b : ct.bands) {
    output::TuneBand band{b.min_bytes, b.max_bytes, b.winner, b.file, b.outofplace_file,
                          b.outofplace ? &*b.outofplace : nullptr, {}, b.note, std::nullopt};
    for (SimTime t : b.outofplace_times) band.outofplace_us.push_back(t.us());
    if (b.winner >= 0) band.error = band_error(ct, b);
    out.bands.push_back(std::move(band));
  }
  out.nccl_sizes = nccl_space_sizes(ct.nccl_space.sizes, min_gain);
  for (const NcclTunerBand& b : ct.nccl_space.bands)
    out.nccl_bands.push_back({b.min_bytes, b.max_bytes, b.point.algo, b.point.proto, b.default_channels ? 0 : b.point.nchannels,
                              point_name(b.point, b.default_channels), b.min_gain, b.max_gain});
  return out;
}

}  // namespace

std::vector<output::SelectionRow> selection_rows(const TuneResult& result) {
  std::vector<output::SelectionRow> rows;
  for (const CollectiveTune& ct : result.collectives)
    for (std::size_t s = 0; s < ct.choices.size(); ++s) {
      const Choice& c = ct.choices[s];
      const sim::NcclChoice& nccl = ct.sizes[s].nccl_choice;
      output::SelectionRow r{ct.collective, c.bytes, c.nccl.us(), c.best.us(), "NCCL", nccl.proto, c.lower_bound.us(),
                             output::NcclBaseline{nccl.algo, nccl.proto, nccl.nchannels}, std::nullopt};
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

std::vector<tuner_conf::Rule> nccl_tuner_rules(const TuneResult& result) {
  std::vector<tuner_conf::Rule> rules;
  for (const CollectiveTune& ct : result.collectives) {
    const int func = sim::nccl_func_index(ct.collective);
    if (func < 0) continue;
    for (const NcclTunerBand& b : ct.nccl_space.bands)
      rules.push_back({func, b.min_bytes, b.max_bytes, result.nodes, result.ranks_per_node, sim::nccl_algo_row(b.point.algo),
                       sim::nccl_proto_index(b.point.proto), b.default_channels ? 0 : b.point.nchannels});
  }
  return rules;
}

std::string explanations_json_text(const std::vector<sim::NcclExplanation>& explanations, double min_gain) {
  return output::nccl_space_sizes_json_text(nccl_space_sizes(explanations, min_gain));
}

output::TuneReport tune_report(const TuneResult& result, const TuneOptions& options) {
  output::TuneReport report;
  report.request = {options.out_dir, options.replace, options.write_candidates, options.sizes, options.min_gain,
                    options.dtype, options.export_rooted, options.jobs, options.metadata};
  report.topology = result.topology;
  report.transport = result.transport;
  report.runtime = result.target.runtime;
  report.multiprocessors = result.target.multiprocessors;
  report.ranks = result.ranks;
  for (const CollectiveTune& ct : result.collectives) report.collectives.push_back(collective_report(ct, options.min_gain));
  report.rows = selection_rows(result);
  report.nccl_space_searched = result.nccl_space_searched;
  if (result.nccl_space_searched) report.tuner_rules = nccl_tuner_rules(result);
  report.simulations = result.simulations;
  report.pruned = result.pruned;
  report.pruned_above_best = result.pruned_above_best;
  report.pruned_by_time_floor_only = result.pruned_by_time_floor_only;
  report.elapsed_s = result.elapsed_s;
  report.candidates_s = result.candidates_s;
  report.exports_s = result.exports_s;
  report.phases = result.phases;
  report.resumed_tasks = result.resumed_tasks;
  report.points_proven = result.points_proven;
  report.points_resumed = result.points_resumed;
  report.floors_resumed = result.floors_resumed;
  report.processes = result.processes;
  report.slowest = result.slowest;
  for (int rank = 0; rank < static_cast<int>(std::max<std::size_t>(result.processes.size(), 1)); ++rank)
    report.journals.push_back(checkpoint_file_name(rank));
  report.finished_line = CheckpointJournal::finished_line();
  return report;
}

}  // namespace ccforge::search
