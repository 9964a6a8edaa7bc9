// OSU's collective benchmarks (osu_allreduce, ..., osu_barrier): per size every implementation the
// backend can run, each timed call by call, and checked once against the collective's definition.
#include <algorithm>
#include <string>

#include <fmt/core.h>

#include "bands.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/validate/validate.hpp"
#include "reference.hpp"

namespace ccforge::validate {
namespace {

using executor::CallSpec;

// What runs one call: an algorithm file, or the backend's own collective where `algorithm` is null.
struct Implementation {
  const ir::Algorithm* algorithm = nullptr;
  std::string name;
};

// `iterations` calls timed one by one after the warm-up, then (with `check`) one call on fresh inputs
// counted against the definition. Nullopt where the backend has no collective of its own.
std::optional<OsuCollectiveRow> measure(executor::Backend& backend, const OsuOptions& o, const CallSpec& call,
                                        const Implementation& impl) {
  const auto run = [&](std::vector<executor::RankBuffers>& buffers, int n) -> std::optional<executor::Timing> {
    if (impl.algorithm) return backend.run(*impl.algorithm, call, buffers, n);
    return backend.run_baseline(call, buffers, n);
  };
  OsuCollectiveRow row{to_string(o.test), impl.name, call.count * size_of(call.dtype), 0.0, 0.0, 0.0, o.iterations, -1, ""};
  try {
    auto buffers = make_inputs(call, o.nranks);
    if (o.warmup > 0 && !run(buffers, o.warmup)) return std::nullopt;
    double total = 0.0;
    for (int i = 0; i < o.iterations; ++i) {
      const auto timing = run(buffers, 1);
      if (!timing) return std::nullopt;
      total += timing->avg_us;
      row.min_us = i == 0 ? timing->avg_us : std::min(row.min_us, timing->avg_us);
      row.max_us = std::max(row.max_us, timing->avg_us);
    }
    row.avg_us = total / o.iterations;
    if (o.check && call.collective != ir::Collective::Send) {
      buffers = make_inputs(call, o.nranks);
      run(buffers, 1);
      row.wrong = count_wrong(call, o.nranks, buffers);
    }
  } catch (const DiagError& e) {
    row.error = e.what();
  }
  return row;
}

// The error as one CSV field: its double quotes become single ones.
std::string quoted_free(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return text;
}

}  // namespace

ir::Algorithm dissemination_barrier(int nranks) {
  using enum ir::BufferKind;
  int rounds = 0;
  while ((1 << rounds) < nranks) ++rounds;
  ir::Algorithm a;
  a.name = "dissemination";
  a.collective = ir::Collective::Send;
  a.protocol = ir::Protocol::LL;
  a.ngpus = nranks;
  a.nchunksperloop = rounds;
  a.inplace = false;
  a.outofplace = true;
  a.source_file = "osu_barrier";
  // Round k: rank r signals r + 2^k and waits for r - 2^k; after round k it has heard, directly or not,
  // from 2^(k+1) ranks, so after ceil(log2 n) rounds from all. Each round is a tb (one peer each way)
  // whose send waits for the previous round's receive.
  for (int r = 0; r < nranks; ++r) {
    ir::GpuProgram gpu{r, rounds, rounds, 0, {}, 0};
    for (int k = 0; k < rounds; ++k) {
      const int distance = 1 << k;
      ir::ThreadBlock tb;
      tb.id = k;
      tb.send_peer = (r + distance) % nranks;
      tb.recv_peer = (r - distance % nranks + nranks) % nranks;
      ir::Step send{.type = ir::OpType::Send, .src_buf = Input, .src_off = k, .dst_buf = Output, .dst_off = k, .count = 1};
      if (k > 0) send.dep_tb = k - 1, send.dep_step = 1;
      ir::Step recv{.type = ir::OpType::Recv, .src_buf = Input, .src_off = -1, .dst_buf = Output, .dst_off = k, .count = 1};
      recv.has_dep = k + 1 < rounds;
      tb.steps = {send, recv};
      gpu.tbs.push_back(tb);
    }
    a.gpus.push_back(gpu);
  }
  return a;
}

std::vector<OsuCollectiveRow> run_osu_collective(executor::Backend& backend, const std::vector<Candidate>& candidates,
                                                 const OsuOptions& o, const std::function<void(const OsuCollectiveRow&)>& on_row) {
  if (is_point_to_point(o.test))
    throw DiagError(Diag{{"validate --suite osu", 0}, fmt::format("{} is a point-to-point test", to_string(o.test)), "use run_osu"});
  if (o.nranks < 2 || o.iterations < 1) throw DiagError(Diag{{"validate --suite osu", 0}, "needs 2 ranks and 1 iteration or more", "raise --nranks or -n"});
  std::vector<OsuCollectiveRow> rows;
  const auto add = [&](const std::optional<OsuCollectiveRow>& row) {
    if (!row) return;
    if (on_row) on_row(*row);
    rows.push_back(*row);
  };
  if (o.test == OsuTest::Barrier) {
    const ir::Algorithm barrier = dissemination_barrier(o.nranks);
    const CallSpec call{ir::Collective::Send, static_cast<std::size_t>(barrier.nchunksperloop), DataType::Uint8};
    add(measure(backend, o, call, Implementation{&barrier, barrier.name}));
    rows.back().size_bytes = 0;  // OSU's barrier has no message size
    return rows;
  }
  const ir::Collective coll = *osu_collective(o.test);
  const std::size_t elem = size_of(o.dtype);
  for (ByteCount size : o.sizes) {
    if (size % elem != 0) continue;
    const CallSpec call{coll, size / elem, o.dtype, o.op, false, o.root};
    add(measure(backend, o, call, Implementation{nullptr, "NCCL"}));
    for (const Candidate& c : candidates) {
      const ir::Algorithm& a = c.algorithm;
      // Out of place as OSU calls it, in place where the file is valid only so (as PyTorch calls allreduce).
      CallSpec placed = call;
      placed.inplace = !a.outofplace;
      if (a.collective != coll || a.ngpus != o.nranks || (!o.all_sizes && !in_band(a, placed)) || executor::why_not_runnable(a, placed))
        continue;
      add(measure(backend, o, placed, Implementation{&a, c.file.stem().string()}));
    }
  }
  return rows;
}

std::string osu_collective_csv(const std::vector<OsuCollectiveRow>& rows) {
  std::string csv = "test,algorithm,size_bytes,avg_latency_us,min_latency_us,max_latency_us,iterations,wrong,error\n";
  for (const OsuCollectiveRow& r : rows)
    csv += fmt::format("{},{},{},{:.2f},{:.2f},{:.2f},{},{},\"{}\"\n", r.test, r.algorithm, r.size_bytes, r.avg_us, r.min_us, r.max_us,
                       r.iterations, r.wrong, quoted_free(r.error));
  return csv;
}

}  // namespace ccforge::validate
