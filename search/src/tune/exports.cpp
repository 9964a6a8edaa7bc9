#include "tune/exports.hpp"

#include <algorithm>

#include <fmt/core.h>
#include <tbb/parallel_for.h>

#include "ccforge/ir/runtime.hpp"
#include "tune/phase_progress.hpp"
#include "tune/runtime_fit.hpp"

namespace ccforge::search {

namespace {

// The winner rebuilt by its generator with out-of-place buffers, proven and fit for the runtime.
Proven outofplace_build(const Candidate& winner, const DeployTarget& target) {
  GenRequest req = winner.request;
  req.inplace = false;
  Proven p = build_proven(*find_generator(winner.generator), req, target);
  if (p.algorithm) p.algorithm->name = winner.name + "_oop";
  else p.why_not = "the out-of-place variant: " + p.why_not;
  return p;
}

// A band whose in-place winner may ship an out-of-place variant, and the tuned sizes it must win at.
struct VariantJob {
  Band* band;
  const Candidate* winner;
  std::vector<const Choice*> sizes;
  std::vector<std::optional<SimTime>> times;
  std::string why_not;
};

// Builds every variant, then simulates every (variant, size) in parallel; a variant ships only where it
// still beats NCCL at every size of its band.
void plan_outofplace(const topo::Topology& topo, std::vector<VariantJob>& jobs, const TuneResult& result,
                     const TuneOptions& options, const sim::SimParams& params, DataType dtype) {
  PhaseProgress progress(options, kPhaseOutOfPlace, jobs.size());
  tbb::parallel_for(std::size_t{0}, jobs.size(), [&](std::size_t j) {
    Proven v = outofplace_build(*jobs[j].winner, result.target);
    jobs[j].band->outofplace = std::move(v.algorithm);
    jobs[j].why_not = std::move(v.why_not);
    jobs[j].times.resize(jobs[j].sizes.size());
    progress.advance();
  });
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (jobs[j].band->outofplace)
      for (std::size_t s = 0; s < jobs[j].sizes.size(); ++s) runs.emplace_back(j, s);
  progress.grow(runs.size());
  tbb::parallel_for(std::size_t{0}, runs.size(), [&](std::size_t i) {
    VariantJob& job = jobs[runs[i].first];
    try {
      job.times[runs[i].second] = sim::simulate(topo, *job.band->outofplace, {job.sizes[runs[i].second]->bytes, dtype}, params).time;
    } catch (const DiagError&) {
      // the size does not split into the variant's chunks: judged below
    }
    progress.advance();
  });
  for (VariantJob& job : jobs) {
    for (std::size_t s = 0; s < job.sizes.size() && job.why_not.empty(); ++s) {
      const Choice& c = *job.sizes[s];
      if (!job.times[s])
        job.why_not = "the out-of-place variant cannot run " + format_size(c.bytes);
      else if (!beats_nccl(*job.times[s], c.nccl, options.min_gain))
        job.why_not = fmt::format("the out-of-place variant ({:.2f} us) does not beat NCCL ({:.2f} us) by {:.0f} % at {}",
                                  job.times[s]->us(), c.nccl.us(), options.min_gain * 100, format_size(c.bytes));
    }
    Band& band = *job.band;
    if (!job.why_not.empty()) {
      band.outofplace.reset();
      band.note += (band.note.empty() ? "" : "; ") + ("in-place only: " + job.why_not + "; out-of-place calls use NCCL");
      continue;
    }
    for (const auto& t : job.times) band.outofplace_times.push_back(*t);
    band.outofplace_file = band.file.substr(0, band.file.size() - 4) + "_oop.xml";
  }
}

// Why NCCL serves a band: nothing fits the runtime, nothing beats NCCL by min_gain there, or the fastest
// candidate's predicted gain is inside its expected error.
std::string why_nccl(const CollectiveTune& ct, const Band& band, const TuneResult& result, const TuneOptions& options) {
  const std::size_t unfit = runtime_rejections(ct.candidates);
  if (ct.candidates.accepted.empty() && unfit > 0)
    return fmt::format("no candidate fits {} on {} SMs/CUs ({} rejected by its rules, see candidates.rejected)",
                       ir::runtime_target(result.target.runtime).title, result.target.multiprocessors, unfit);
  if (ct.candidates.accepted.empty()) return "no generator builds a candidate here (see candidates.rejected)";
  double inside = 0.0;  // the largest expected error that kept a candidate beating min_gain out
  for (std::size_t s = 0; s < ct.choices.size(); ++s) {
    const Choice& c = ct.choices[s];
    if (c.bytes < band.min_bytes || c.bytes > band.max_bytes || c.fastest < 0) continue;
    if (beats_nccl(*ct.sizes[s].times[static_cast<std::size_t>(c.fastest)], c.nccl, options.min_gain))
      inside = std::max(inside, c.error.pct);
  }
  if (inside > 0)
    return fmt::format("NCCL kept: the fastest candidate's predicted gain is inside its expected error (up to {:.1f} %, "
                       "selection.md)", inside);
  return fmt::format("no candidate beats NCCL by {:.0f} %", options.min_gain * 100);
}

}  // namespace

void plan_exports(const topo::Topology& topo, TuneResult& result, const TuneOptions& options, const sim::SimParams& params,
                  DataType dtype) {
  const ir::RuntimeTarget& runtime = ir::runtime_target(result.target.runtime);
  std::vector<VariantJob> jobs;
  for (CollectiveTune& ct : result.collectives) {
    const bool rooted = ir::is_rooted(ct.collective);
    for (std::size_t b = 0; b < ct.bands.size(); ++b) {
      Band& band = ct.bands[b];
      if (band.winner < 0) {
        band.note = why_nccl(ct, band, result, options);
        continue;
      }
      const Candidate& winner = ct.candidates.accepted[static_cast<std::size_t>(band.winner)];
      if (!ir::schedules(runtime, ct.collective)) {
        band.note = fmt::format("not exported: {} has no {} entry point that runs MSCCL files", runtime.title,
                                ir::to_string(ct.collective));
        continue;
      }
      if (rooted && !options.export_rooted) {
        band.note = "not exported: the file assumes root 0 and the runtime uses it for any root (--export-rooted writes it)";
        continue;
      }
      // Bands are disjoint, so any order selects correctly; the index keeps files in size order.
      band.file = fmt::format("{}/{}_{:02}_{}.xml", rooted ? "algorithms-rooted" : "algorithms", ir::to_string(ct.collective),
                              b, winner.name);
      if (rooted) band.note = "root 0 only: deploy where every call of this collective uses root 0";
      if (!winner.algorithm.inplace) continue;  // already out-of-place (alltoall)
      VariantJob job{&band, &winner, {}, {}, {}};
      for (const Choice& c : ct.choices)
        if (c.bytes >= band.min_bytes && c.bytes <= band.max_bytes) job.sizes.push_back(&c);
      jobs.push_back(std::move(job));
    }
  }
  plan_outofplace(topo, jobs, result, options, params, dtype);
}

}  // namespace ccforge::search
