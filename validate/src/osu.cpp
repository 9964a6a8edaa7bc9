// OSU micro-benchmark semantics (osu_latency, osu_bw, osu_bibw) as two-rank programs in the IR, run by
// the same backends as the collectives, once per protocol.
#include <string>

#include <fmt/core.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

ir::Step transfer(ir::OpType type, ir::BufferKind src, int src_off, ir::BufferKind dst, int dst_off) {
  return {.type = type, .src_buf = src, .src_off = src_off, .dst_buf = dst, .dst_off = dst_off, .count = 1};
}

ir::ThreadBlock threadblock(int id, int send, int recv) {
  ir::ThreadBlock tb;
  tb.id = id;
  tb.send_peer = send;
  tb.recv_peer = recv;
  return tb;
}

ir::Algorithm two_ranks(const char* name, ir::Protocol protocol, int chunks) {
  ir::Algorithm a;
  a.name = name;
  a.collective = ir::Collective::Send;
  a.protocol = protocol;
  a.ngpus = 2;
  a.nchunksperloop = chunks;
  a.inplace = false;
  a.outofplace = true;
  a.source_file = std::string("osu_") + name;
  a.gpus.resize(2);
  for (int r = 0; r < 2; ++r) a.gpus[static_cast<std::size_t>(r)] = ir::GpuProgram{r, chunks, chunks, 0, {}, 0};
  return a;
}

// Ping-pong: rank 0 sends, rank 1 receives and sends the message back.
ir::Algorithm ping_pong(ir::Protocol protocol) {
  using enum ir::BufferKind;
  ir::Algorithm a = two_ranks("latency", protocol, 1);
  ir::ThreadBlock t0 = threadblock(0, 1, 1), t1 = threadblock(0, 0, 0);
  t0.steps = {transfer(ir::OpType::Send, Input, 0, Output, 0), transfer(ir::OpType::Recv, Input, -1, Output, 0)};
  t1.steps = {transfer(ir::OpType::Recv, Input, -1, Output, 0), transfer(ir::OpType::Send, Output, 0, Output, 0)};
  a.gpus[0].tbs = {t0};
  a.gpus[1].tbs = {t1};
  return a;
}

// A window of `window` messages rank 0 -> rank 1 (and 1 -> 0 as well when both ways).
ir::Algorithm windowed(ir::Protocol protocol, int window, bool both_ways) {
  using enum ir::BufferKind;
  ir::Algorithm a = two_ranks(both_ways ? "bibw" : "bw", protocol, window);
  for (int r = 0; r < 2; ++r) {
    const bool sends = r == 0 || both_ways, receives = r == 1 || both_ways;
    auto& tbs = a.gpus[static_cast<std::size_t>(r)].tbs;
    if (sends) {
      tbs.push_back(threadblock(static_cast<int>(tbs.size()), 1 - r, -1));
      for (int k = 0; k < window; ++k) tbs.back().steps.push_back(transfer(ir::OpType::Send, Input, k, Output, k));
    }
    if (receives) {
      tbs.push_back(threadblock(static_cast<int>(tbs.size()), -1, 1 - r));
      for (int k = 0; k < window; ++k) tbs.back().steps.push_back(transfer(ir::OpType::Recv, Input, -1, Output, k));
    }
  }
  return a;
}

const char* name_of(OsuTest t) { return t == OsuTest::Latency ? "latency" : t == OsuTest::Bandwidth ? "bw" : "bibw"; }

}  // namespace

std::optional<OsuTest> osu_test_from_string(const std::string& s) {
  for (OsuTest t : {OsuTest::Latency, OsuTest::Bandwidth, OsuTest::BiBandwidth})
    if (s == name_of(t)) return t;
  return std::nullopt;
}

std::vector<OsuRow> run_osu(executor::Backend& backend, const OsuOptions& o, const std::function<void(const OsuRow&)>& on_row) {
  if (o.step_factor < 2 || o.min_bytes < 2 || o.min_bytes > o.max_bytes || o.window < 1)
    throw DiagError(Diag{{"validate --suite osu", 0}, "size sweep or window is empty", "use -b >= 2, -b <= -e, -f >= 2"});
  constexpr auto kType = DataType::Half;  // 2-byte elements: the smallest message is 2 B
  std::vector<OsuRow> rows;
  for (ir::Protocol protocol : {ir::Protocol::LL, ir::Protocol::Simple}) {
    const int window = o.test == OsuTest::Latency ? 1 : o.window;
    const ir::Algorithm algo = o.test == OsuTest::Latency ? ping_pong(protocol) : windowed(protocol, window, o.test == OsuTest::BiBandwidth);
    for (ByteCount size = o.min_bytes; size <= o.max_bytes; size *= static_cast<ByteCount>(o.step_factor)) {
      if (size % 2 != 0) continue;
      const executor::CallSpec call{ir::Collective::Send, size / 2 * static_cast<std::size_t>(window), kType, executor::RedOp::Sum};
      std::vector<executor::RankBuffers> buffers(2);
      for (auto& b : buffers) {
        b.send.assign(call.count * 2, std::byte{1});
        b.recv.assign(call.count * 2, std::byte{0});
      }
      if (o.warmup > 0) backend.run(algo, call, buffers, o.warmup);
      const double us = backend.run(algo, call, buffers, o.iterations).avg_us;
      OsuRow row{name_of(o.test), ir::to_string(protocol), size, 0.0, 0.0};
      const double moved = static_cast<double>(size) * window * (o.test == OsuTest::BiBandwidth ? 2 : 1);
      row.latency_us = o.test == OsuTest::Latency ? us / 2 : us / window;  // one way
      row.bandwidth_gbps = moved / (us * 1e3);
      if (on_row) on_row(row);
      rows.push_back(row);
      if (size > o.max_bytes / static_cast<ByteCount>(o.step_factor)) break;
    }
  }
  return rows;
}

std::string osu_csv(const std::vector<OsuRow>& rows) {
  std::string csv = "test,protocol,size_bytes,latency_us,bandwidth_GBps\n";
  for (const OsuRow& r : rows) csv += fmt::format("{},{},{},{:.3f},{:.4f}\n", r.test, r.protocol, r.size_bytes, r.latency_us, r.bandwidth_gbps);
  return csv;
}

}  // namespace ccforge::validate
