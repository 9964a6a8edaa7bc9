#include "generators.hpp"

#include <string>

namespace ccforge::ir::testgen {
namespace {

ChunkRef in(int rank, int index) { return {rank, BufferKind::Input, index, 1}; }
ChunkRef out(int rank, int index) { return {rank, BufferKind::Output, index, 1}; }
ChunkRef scratch(int rank, int index) { return {rank, BufferKind::Scratch, index, 1}; }

AlgorithmBuilder make(const std::string& name, Collective c, int n, int in_chunks, int out_chunks, bool inplace = false) {
  return AlgorithmBuilder(BuilderSpec{name, c, n, Protocol::Simple, in_chunks, out_chunks, inplace});
}

}  // namespace

Algorithm ring_allreduce(int n, int chunks_per_rank, int channels, bool inplace) {
  const int chunks = n * chunks_per_rank;
  AlgorithmBuilder b = make("ring_allreduce", Collective::AllReduce, n, chunks, chunks, inplace);
  for (int k = 0; k < chunks; ++k) {
    const int start = k % n, ch = k % channels;
    // Reduce-scatter: the running sum accumulates in the output buffers along start, start+1, ...
    if (!inplace) b.copy(in(start, k), out(start, k));
    for (int hop = 1; hop < n; ++hop) {
      const int from = (start + hop - 1) % n, to = (start + hop) % n;
      if (!inplace) b.copy(in(to, k), out(to, k));
      b.send_reduce(out(from, k), out(to, k), ch);
    }
    // All-gather: the rank that added last forwards the full sum around the ring.
    const int owner = (start + n - 1) % n;
    for (int hop = 1; hop < n; ++hop) b.send(out((owner + hop - 1) % n, k), out((owner + hop) % n, k), ch);
  }
  return b.build();
}

Algorithm ring_reducescatter(int n, bool inplace) {
  AlgorithmBuilder b = make("ring_reducescatter", Collective::ReduceScatter, n, n, 1, inplace);
  for (int k = 0; k < n; ++k) {
    ChunkRef partial = in((k + 1) % n, k);
    for (int hop = 2; hop < n; ++hop) {
      const int r = (k + hop) % n;
      b.copy(in(r, k), scratch(r, k));
      b.send_reduce(partial, scratch(r, k));
      partial = scratch(r, k);
    }
    if (!inplace) b.copy(in(k, k), out(k, 0));  // in place, out(k, 0) is in(k, k) already
    b.send_reduce(partial, out(k, 0));
  }
  return b.build();
}

Algorithm ring_allgather(int n, bool inplace) {
  AlgorithmBuilder b = make("ring_allgather", Collective::AllGather, n, 1, n, inplace);
  for (int q = 0; q < n; ++q) {
    if (!inplace) b.copy(in(q, 0), out(q, q));  // in place, in(q, 0) is out(q, q) already
    for (int hop = 1; hop < n; ++hop) b.send(out((q + hop - 1) % n, q), out((q + hop) % n, q));
  }
  return b.build();
}

Algorithm direct_allgather(int n) {
  AlgorithmBuilder b = make("direct_allgather", Collective::AllGather, n, 1, n);
  for (int r = 0; r < n; ++r) {
    b.copy(in(r, 0), out(r, r));
    for (int q = 0; q < n; ++q)
      if (q != r) b.send(in(r, 0), out(q, r));
  }
  return b.build();
}

Algorithm direct_alltoall(int n) {
  AlgorithmBuilder b = make("direct_alltoall", Collective::AllToAll, n, n, n);
  for (int r = 0; r < n; ++r) {
    b.copy(in(r, r), out(r, r));
    for (int q = 0; q < n; ++q)
      if (q != r) b.send(in(r, q), out(q, r));
  }
  return b.build();
}

Algorithm chain_broadcast(int n, int chunks) {
  AlgorithmBuilder b = make("chain_broadcast", Collective::Broadcast, n, chunks, chunks);
  for (int k = 0; k < chunks; ++k) {
    b.copy(in(0, k), out(0, k));
    b.send(in(0, k), out(1, k));
    for (int r = 1; r + 1 < n; ++r) b.send(out(r, k), out(r + 1, k));
  }
  return b.build();
}

Algorithm chain_reduce(int n, int chunks) {
  AlgorithmBuilder b = make("chain_reduce", Collective::Reduce, n, chunks, chunks);
  for (int k = 0; k < chunks; ++k) {
    ChunkRef partial = in(n - 1, k);
    for (int r = n - 2; r > 0; --r) {
      b.copy(in(r, k), scratch(r, k));
      b.send_reduce(partial, scratch(r, k));
      partial = scratch(r, k);
    }
    b.copy(in(0, k), out(0, k));
    b.send_reduce(partial, out(0, k));
  }
  return b.build();
}

Algorithm direct_gather(int n) {
  AlgorithmBuilder b = make("direct_gather", Collective::Gather, n, 1, n);
  b.copy(in(0, 0), out(0, 0));
  for (int q = 1; q < n; ++q) b.send(in(q, 0), out(0, q));
  return b.build();
}

Algorithm direct_scatter(int n) {
  AlgorithmBuilder b = make("direct_scatter", Collective::Scatter, n, n, 1);
  b.copy(in(0, 0), out(0, 0));
  for (int q = 1; q < n; ++q) b.send(in(0, q), out(q, 0));
  return b.build();
}

Algorithm allpairs_allreduce(int n) {
  AlgorithmBuilder b = make("allpairs_allreduce", Collective::AllReduce, n, n, n);
  for (int r = 0; r < n; ++r)
    for (int q = 0; q < n; ++q)
      if (q != r) b.send(in(r, q), scratch(q, r));
  for (int q = 0; q < n; ++q) {
    b.copy(in(q, q), out(q, q));
    for (int r = 0; r < n; ++r)
      if (r != q) b.reduce(scratch(q, r), out(q, q));
  }
  for (int q = 0; q < n; ++q)
    for (int r = 0; r < n; ++r)
      if (r != q) b.send(out(q, q), out(r, q));
  return b.build();
}

}  // namespace ccforge::ir::testgen
