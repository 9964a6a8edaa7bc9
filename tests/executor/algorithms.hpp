// Small algorithms filled in by hand as ir::Algorithm structs, each with the data movement spelled out,
// so the executor is tested independently of the MSCCL reader.
#pragma once

#include <string>

#include "ccforge/ir/ir.hpp"

namespace ccforge::executor::testing {

inline ir::Step step(ir::OpType type, ir::BufferKind src, int src_off, ir::BufferKind dst, int dst_off, int count = 1) {
  return {.type = type, .src_buf = src, .src_off = src_off, .dst_buf = dst, .dst_off = dst_off, .count = count};
}

inline ir::Algorithm empty_algorithm(ir::Collective coll, int ngpus, int nchunksperloop, ir::Protocol proto) {
  ir::Algorithm a;
  a.name = "test";
  a.collective = coll;
  a.protocol = proto;
  a.ngpus = ngpus;
  a.nchannels = 1;
  a.nchunksperloop = nchunksperloop;
  a.source_file = "test.xml";
  a.gpus.resize(static_cast<std::size_t>(ngpus));
  for (int r = 0; r < ngpus; ++r) a.gpus[static_cast<std::size_t>(r)].rank = r;
  return a;
}

inline ir::ThreadBlock& add_tb(ir::Algorithm& a, int rank, int send, int recv, int channel = 0) {
  auto& tbs = a.gpus[static_cast<std::size_t>(rank)].tbs;
  ir::ThreadBlock tb;
  tb.id = static_cast<int>(tbs.size());
  tb.send_peer = send;
  tb.recv_peer = recv;
  tb.channel = channel;
  tbs.push_back(tb);
  return tbs.back();
}

// Rank r's tb for channel c of ring_allreduce (below).
inline void add_ring_allreduce_tb(ir::Algorithm& a, int r, int c) {
  using ir::BufferKind;
  using ir::OpType;
  const int n = a.ngpus;
  auto& tb = add_tb(a, r, (r + 1) % n, (r + n - 1) % n, c);
  const auto chunk = [&](int k) { return c * n + ((r - k) % n + n) % n; };
  tb.steps.push_back(step(OpType::Copy, BufferKind::Input, c * n, BufferKind::Output, c * n, n));
  // Reduce-scatter: rank r starts chunk r; after n-1 hops rank r holds the full sum of chunk r+1.
  tb.steps.push_back(step(OpType::Send, BufferKind::Output, chunk(0), BufferKind::Output, chunk(0)));
  for (int k = 1; k < n - 1; ++k)
    tb.steps.push_back(step(OpType::RecvReduceSend, BufferKind::Output, chunk(k), BufferKind::Output, chunk(k)));
  tb.steps.push_back(step(OpType::RecvReduceCopySend, BufferKind::Output, chunk(n - 1), BufferKind::Output, chunk(n - 1)));
  // Allgather: forward the finished chunks around the ring.
  for (int k = 0; k < n - 2; ++k)
    tb.steps.push_back(step(OpType::RecvCopySend, BufferKind::Output, chunk(k), BufferKind::Output, chunk(k)));
  tb.steps.push_back(step(OpType::Recv, BufferKind::Output, chunk(n - 2), BufferKind::Output, chunk(n - 2)));
}

// Ring allreduce on n ranks with n chunks per channel, out of place: first a copy i -> o, then
// reduce-scatter (n-1 rrs/rrc hops on chunk (r - k)) and allgather (n-1 rcs/r hops), one tb per rank
// and channel sending to r+1 and receiving from r-1; channel c owns chunks [c*n, (c+1)*n).
// Steps per tb: cpy, s, (rrs x n-2), rrcs, (rcs x n-2), r.
inline ir::Algorithm ring_allreduce(int n, ir::Protocol proto = ir::Protocol::Simple, int channels = 1) {
  ir::Algorithm a = empty_algorithm(ir::Collective::AllReduce, n, n * channels, proto);
  a.nchannels = channels;
  a.inplace = false;
  a.outofplace = true;
  for (int r = 0; r < n; ++r) {
    auto& g = a.gpus[static_cast<std::size_t>(r)];
    g.input_chunks = n * channels;
    g.output_chunks = n * channels;
  }
  for (int c = 0; c < channels; ++c) {
    for (int r = 0; r < n; ++r) add_ring_allreduce_tb(a, r, c);
  }
  return a;
}

}  // namespace ccforge::executor::testing
