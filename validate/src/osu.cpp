// OSU micro-benchmark names, and the point-to-point tests (osu_latency, osu_bw, osu_bibw) as two-rank
// programs in the IR, run by the same backends as the collectives, once per protocol.
#include <array>
#include <string>
#include <utility>

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

constexpr std::array<std::pair<OsuTest, const char*>, 11> kOsuNames{{{OsuTest::Latency, "latency"},
                                                                    {OsuTest::Bandwidth, "bw"},
                                                                    {OsuTest::BiBandwidth, "bibw"},
                                                                    {OsuTest::AllReduce, "allreduce"},
                                                                    {OsuTest::AllGather, "allgather"},
                                                                    {OsuTest::AllToAll, "alltoall"},
                                                                    {OsuTest::Barrier, "barrier"},
                                                                    {OsuTest::Broadcast, "broadcast"},
                                                                    {OsuTest::Gather, "gather"},
                                                                    {OsuTest::Reduce, "reduce"},
                                                                    {OsuTest::Scatter, "scatter"}}};

}  // namespace

const char* to_string(OsuTest t) {
  for (const auto& [test, name] : kOsuNames)
    if (test == t) return name;
  return "?";
}

std::optional<OsuTest> osu_test_from_string(const std::string& s) {
  for (const auto& [test, name] : kOsuNames)
    if (s == name) return test;
  return std::nullopt;
}

bool is_point_to_point(OsuTest t) { return t == OsuTest::Latency || t == OsuTest::Bandwidth || t == OsuTest::BiBandwidth; }

std::vector<OsuTest> osu_tests(const std::string& name) {
  std::vector<OsuTest> tests;
  for (const auto& [test, test_name] : kOsuNames)
    if (name == test_name || name == "benchmarks" || (name == "collectives" && !is_point_to_point(test))) tests.push_back(test);
  return tests;
}

std::optional<ir::Collective> osu_collective(OsuTest t) {
  switch (t) {
    case OsuTest::AllReduce: return ir::Collective::AllReduce;
    case OsuTest::AllGather: return ir::Collective::AllGather;
    case OsuTest::AllToAll: return ir::Collective::AllToAll;
    case OsuTest::Broadcast: return ir::Collective::Broadcast;
    case OsuTest::Gather: return ir::Collective::Gather;
    case OsuTest::Reduce: return ir::Collective::Reduce;
    case OsuTest::Scatter: return ir::Collective::Scatter;
    default: return std::nullopt;
  }
}

std::vector<OsuRow> run_osu(executor::Backend& backend, const OsuOptions& o, const std::function<void(const OsuRow&)>& on_row) {
  if (!is_point_to_point(o.test))
    throw DiagError(Diag{{"validate --suite osu", 0}, fmt::format("{} is not a point-to-point test", to_string(o.test)), "use latency, bw or bibw"});
  if (o.sizes.empty() || o.window < 1) throw DiagError(Diag{{"validate --suite osu", 0}, "size sweep or window is empty", "use -b <= -e and -W >= 1"});
  constexpr auto kType = DataType::Uint8;  // 1-byte elements: OSU's messages start at 1 byte
  std::vector<OsuRow> rows;
  for (ir::Protocol protocol : {ir::Protocol::LL, ir::Protocol::LL128, ir::Protocol::Simple}) {
    const int window = o.test == OsuTest::Latency ? 1 : o.window;
    const ir::Algorithm algo = o.test == OsuTest::Latency ? ping_pong(protocol) : windowed(protocol, window, o.test == OsuTest::BiBandwidth);
    for (ByteCount size : o.sizes) {
      const executor::CallSpec call{ir::Collective::Send, size * static_cast<std::size_t>(window), kType, executor::RedOp::Sum};
      std::vector<executor::RankBuffers> buffers(2);
      for (auto& b : buffers) {
        b.send.assign(call.count, std::byte{1});
        b.recv.assign(call.count, std::byte{0});
      }
      if (o.warmup > 0) backend.run(algo, call, buffers, o.warmup);
      const double us = backend.run(algo, call, buffers, o.iterations).avg_us;
      OsuRow row{to_string(o.test), ir::to_string(protocol), size, 0.0, 0.0};
      const double moved = static_cast<double>(size) * window * (o.test == OsuTest::BiBandwidth ? 2 : 1);
      row.latency_us = o.test == OsuTest::Latency ? us / 2 : us / window;  // one way
      row.bandwidth_mbps = moved / us;                                      // bytes per us = 10^6 bytes per s
      if (on_row) on_row(row);
      rows.push_back(row);
    }
  }
  return rows;
}

std::string osu_csv(const std::vector<OsuRow>& rows) {
  std::string csv = "test,protocol,size_bytes,latency_us,bandwidth_MBps\n";
  for (const OsuRow& r : rows) csv += fmt::format("{},{},{},{:.3f},{:.2f}\n", r.test, r.protocol, r.size_bytes, r.latency_us, r.bandwidth_mbps);
  return csv;
}

}  // namespace ccforge::validate
