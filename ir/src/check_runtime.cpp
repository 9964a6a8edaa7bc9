// The runtime rules (runtime.hpp): what a runtime's loader and kernel would reject, mis-read or hang on
// although its XML parser accepts it.
#include <fmt/core.h>

#include "ccforge/ir/runtime.hpp"
#include "check_phases.hpp"

namespace ccforge::ir {

namespace {

void check_rank(const GpuProgram& gpu, const Algorithm& algo, const RuntimeTarget& target, int multiprocessors, IssueSink& sink) {
  const int tbs = static_cast<int>(gpu.tbs.size());
  if (tbs > target.max_tbs_per_rank)
    sink.add("runtime.tbs", gpu.rank, -1, -1,
             fmt::format("{} threadblocks; {} loads at most {} per rank (MSCCL_MAX_NUM_THREAD_BLOCKS) and fails "
                         "communicator creation otherwise (use fewer instances or channels)",
                         tbs, target.title, target.max_tbs_per_rank));
  if (multiprocessors > 0 && tbs > multiprocessors)
    sink.add("runtime.resident", gpu.rank, -1, -1,
             fmt::format("{} threadblocks on a GPU with {} SMs/CUs: MSCCL threadblocks spin-wait on each other, so "
                         "all must be resident at once, one per SM (use at most {} threadblocks)",
                         tbs, multiprocessors, multiprocessors));
  int steps = 0;
  for (const ThreadBlock& tb : gpu.tbs) steps += static_cast<int>(tb.steps.size());
  const int counted = 1 + algo.ngpus + tbs + steps;
  if (counted > target.max_counted_xml_nodes)
    sink.add("runtime.xml_nodes", gpu.rank, -1, -1,
             fmt::format("the parser counts {} elements for this rank (<algo>, {} <gpu>, {} <tb>, {} <step>) but holds "
                         "at most {} (MAX_NODES) (use fewer threadblocks or steps)",
                         counted, algo.ngpus, tbs, steps, target.max_counted_xml_nodes));
}

void check_steps(const GpuProgram& gpu, const RuntimeTarget& target, IssueSink& sink) {
  for (const ThreadBlock& tb : gpu.tbs)
    for (std::size_t s = 0; s < tb.steps.size(); ++s) {
      const Step& st = tb.steps[s];
      const int step = static_cast<int>(s);
      if (st.dep_tb > target.max_dependee_tb)
        sink.add("runtime.depid", gpu.rank, tb.id, step,
                 fmt::format("depid={} does not fit the runtime's int8_t dependentBid (at most {}): it wraps negative and "
                             "the kernel waits on a flag outside its array (only threadblocks 0-{} may be waited on)",
                             st.dep_tb, target.max_dependee_tb, target.max_dependee_tb));
      for (const auto& [what, off] : {std::pair{"srcoff", st.src_off}, std::pair{"dstoff", st.dst_off}})
        if (off > target.max_offset)
          sink.add("runtime.offset", gpu.rank, tb.id, step,
                   fmt::format("{}={} does not fit the runtime's int16_t offset (at most {}) (use fewer chunks per loop)",
                               what, off, target.max_offset));
    }
}

// RCCL runs LL128 only on gfx90a (ROCm/rccl @0cbce2a7: src/device/generate.py builds its collectives'
// LL128 functions for __gfx90a__ with ENABLE_LL128 and LL in their place elsewhere; src/graph/tuning.cc
// enables LL128 by default only on gfx90a). Its MSCCL kernel has an ungated LL128 entry
// (src/device/msccl_kernel_impl.h), so an LL128 file would run a protocol RCCL does not run or validate
// on the AMD GPUs ccforge models (MI300X, gfx942).
void check_protocol(const Algorithm& algo, const RuntimeTarget& target, IssueSink& sink) {
  if (target.runtime == Runtime::Rccl && algo.protocol == Protocol::LL128)
    sink.add("runtime.protocol", -1, -1, -1,
             fmt::format("proto=\"LL128\": {} runs LL128 only on gfx90a, not on MI300X (gfx942), where its MSCCL "
                         "kernel's LL128 path is unvalidated (use LL or Simple)",
                         target.title));
}

}  // namespace

std::optional<std::string> rank_count_misfit(const RuntimeTarget& target, int ngpus) {
  if (ngpus <= target.max_ranks) return std::nullopt;
  return fmt::format("ngpus={} exceeds the {} <gpu> elements the parser stores (MAX_SUBS)", ngpus, target.max_ranks);
}

void check_loadable(const Algorithm& algo, const RuntimeTarget& target, int multiprocessors, CheckReport& report) {
  IssueSink sink(algo, report.issues);
  if (std::optional<std::string> misfit = rank_count_misfit(target, algo.ngpus))
    sink.add("runtime.ranks", -1, -1, -1, std::move(*misfit));
  check_protocol(algo, target, sink);
  for (const GpuProgram& gpu : algo.gpus) {
    check_rank(gpu, algo, target, multiprocessors, sink);
    check_steps(gpu, target, sink);
  }
}

CheckReport check(const Algorithm& algo, const RuntimeTarget& target, int multiprocessors) {
  CheckReport report = check(algo, target.limits);
  check_loadable(algo, target, multiprocessors, report);
  if (!schedules(target, algo.collective))
    IssueSink(algo, report.issues)
        .add("runtime.collective", -1, -1, -1,
             fmt::format("{} has no {} entry point that runs MSCCL files: the file loads but is never used "
                         "(leave it out of MSCCL_ALGO_DIR)",
                         target.title, to_string(algo.collective)));
  else if (is_rooted(algo.collective) && !target.scheduler_matches_root)
    report.notes.push_back(fmt::format("{} uses this file for a {} with any root, but MSCCL XML has no root and the file "
                                       "assumes root 0: deploy it only where every call uses root 0",
                                       target.title, to_string(algo.collective)));
  return report;
}

}  // namespace ccforge::ir
