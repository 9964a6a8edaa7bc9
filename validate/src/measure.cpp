// The sweep: per collective and size, NCCL (where the backend has it) and every algorithm whose band
// covers the size, each out of place and in place as it allows, timed nccl-tests style and checked.
#include <algorithm>
#include <cstdint>
#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/ir/runtime.hpp"
#include "ccforge/validate/validate.hpp"
#include "bands.hpp"
#include "reference.hpp"

namespace ccforge::validate {
namespace {

using executor::CallSpec;

struct Target {
  const Candidate* candidate = nullptr;  // null: the backend's baseline (NCCL)
};

Measurement describe(const SweepOptions& o, const CallSpec& call, ByteCount size, const Target& t) {
  Measurement m;
  m.collective = ir::to_string(call.collective);
  // File stems name algorithms: unlike the XML's name attribute they are unique within a directory.
  m.algorithm = t.candidate ? t.candidate->file.stem().string() : "NCCL";
  m.file = t.candidate ? t.candidate->file.string() : "";
  m.protocol = t.candidate ? ir::to_string(t.candidate->algorithm.protocol) : "";
  m.size_bytes = size;
  m.count = call.count;
  m.type = to_string(o.dtype);
  m.redop = executor::applies_reduction(call.collective) ? executor::to_string(o.op) : "none";
  m.root = ir::is_rooted(call.collective) ? call.root : -1;
  m.inplace = call.inplace;
  return m;
}

// Warm-up, timed iterations, then a fresh run on re-initialised buffers for the check (in-place
// iterations feed on their own output, as in nccl-tests). False when the baseline does not exist.
bool measure(executor::Backend& backend, const SweepOptions& o, const CallSpec& call, const Target& t, Measurement& m) {
  const auto run = [&](std::vector<executor::RankBuffers>& buffers, int n) -> std::optional<executor::Timing> {
    if (t.candidate) return backend.run(t.candidate->algorithm, call, buffers, n);
    return backend.run_baseline(call, buffers, n);
  };
  try {
    auto buffers = make_inputs(call, o.nranks);
    if (o.warmup > 0 && !run(buffers, o.warmup)) return false;
    const auto timing = run(buffers, o.iterations);
    if (!timing) return false;
    m.time_us = timing->avg_us;
    m.wrong = -1;
    if (o.check) {
      buffers = make_inputs(call, o.nranks);
      run(buffers, 1);
      m.wrong = count_wrong(call, o.nranks, buffers);
    }
  } catch (const DiagError& e) {
    m.error = e.what();
  }
  const double algbw = m.time_us > 0 ? static_cast<double>(m.size_bytes) / (m.time_us * 1e3) : 0.0;  // GB/s
  m.algbw_gbps = algbw;
  m.busbw_gbps = algbw * ir::bus_bandwidth_factor(call.collective, o.nranks);
  return true;
}

std::vector<ir::Collective> collectives_of(const std::vector<Candidate>& candidates, const SweepOptions& o) {
  if (!o.collectives.empty()) return o.collectives;
  std::vector<ir::Collective> out;
  for (const Candidate& c : candidates)
    if (std::find(out.begin(), out.end(), c.algorithm.collective) == out.end()) out.push_back(c.algorithm.collective);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::uint64_t host_buffer_bytes(const std::vector<Candidate>& candidates, const SweepOptions& o) {
  if (o.sizes.empty()) return 0;
  const ByteCount largest = *std::max_element(o.sizes.begin(), o.sizes.end());
  const std::size_t elem = size_of(o.dtype);
  std::uint64_t most = 0;
  for (ir::Collective coll : collectives_of(candidates, o)) {
    const auto ranks = static_cast<std::size_t>(ir::ranks_in_size(coll, o.nranks));
    const CallSpec call{coll, largest / elem / ranks, o.dtype, o.op, false, o.root};
    std::uint64_t bytes = 0;
    for (int rank = 0; rank < o.nranks; ++rank) {
      const executor::BufferLayout layout = executor::buffer_layout(call, o.nranks, rank);
      bytes += (layout.send_elems + layout.recv_elems) * elem;
    }
    most = std::max(most, 2 * bytes);
  }
  return most;
}

SweepResult run_sweep(executor::Backend& backend, const std::vector<Candidate>& candidates, const SweepOptions& o,
                      const std::function<void(const Measurement&)>& on_run) {
  const std::vector<ByteCount>& sizes = o.sizes;
  if (sizes.empty()) throw DiagError(Diag{{"validate", 0}, "the size sweep is empty", "use -b > 0 and -b <= -e"});
  SweepResult result{backend.name(), o.nranks, {}, {}};
  const std::size_t elem = size_of(o.dtype);
  for (ir::Collective coll : collectives_of(candidates, o)) {
    // -b/-e sizes are nccl-tests sizes: the total over ranks for allgather, reducescatter, alltoall,
    // gather and scatter, so the per-rank count is the elements divided by the rank count there.
    const auto ranks = static_cast<std::size_t>(ir::ranks_in_size(coll, o.nranks));
    for (ByteCount size : sizes) {
      const std::size_t elems = size / elem;
      if (size % elem != 0 || elems % ranks != 0) continue;
      const std::size_t count = elems / ranks;
      std::vector<Target> targets{Target{}};
      for (const Candidate& c : candidates)
        if (c.algorithm.collective == coll && c.algorithm.ngpus == o.nranks &&
            (o.all_sizes || in_band(c.algorithm, CallSpec{coll, count, o.dtype, o.op, false, o.root})))
          targets.push_back(Target{&c});
      for (const Target& t : targets) {
        for (bool inplace : {false, true}) {
          const CallSpec call{coll, count, o.dtype, o.op, inplace, o.root};
          if (t.candidate && executor::why_not_runnable(t.candidate->algorithm, call)) continue;
          Measurement m = describe(o, call, size, t);
          if (!measure(backend, o, call, t, m)) continue;
          if (!m.ok() && t.candidate && std::find(result.broken.begin(), result.broken.end(), m.file) == result.broken.end())
            result.broken.push_back(m.file);
          if (on_run) on_run(m);
          result.runs.push_back(std::move(m));
        }
      }
    }
  }
  return result;
}

}  // namespace ccforge::validate
