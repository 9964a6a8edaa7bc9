// AlgorithmBuilder: tb allocation, fusion, dependencies, nops, in-place buffers, limits, validation.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ccforge/ir/builder.hpp"
#include "generators.hpp"

namespace ccforge::ir {
namespace {

using ::testing::HasSubstr;

ChunkRef in(int rank, int index) { return {rank, BufferKind::Input, index, 1}; }
ChunkRef out(int rank, int index) { return {rank, BufferKind::Output, index, 1}; }
ChunkRef scratch(int rank, int index) { return {rank, BufferKind::Scratch, index, 1}; }

int count_type(const Algorithm& a, OpType t) {
  int n = 0;
  for (const GpuProgram& g : a.gpus)
    for (const ThreadBlock& tb : g.tbs)
      for (const Step& s : tb.steps) n += s.type == t;
  return n;
}

TEST(Builder, RingAllreduceFusesForwardingIntoRrcsAndRcs) {
  // One chunk per rank on a 4-ring: per chunk 1 s, 2 rrcs (middle of the reduce), 1 rrcs (last reduce,
  // which starts the gather), 2 rcs and 1 r.
  const Algorithm a = testgen::ring_allreduce(4, 1, 1, true);
  EXPECT_EQ(count_type(a, OpType::Send), 4);
  EXPECT_EQ(count_type(a, OpType::RecvReduceCopySend), 4 * 3);
  EXPECT_EQ(count_type(a, OpType::RecvCopySend), 4 * 2);
  EXPECT_EQ(count_type(a, OpType::Recv), 4);
  EXPECT_EQ(count_type(a, OpType::Copy), 0);  // in place: no copies into the output
  for (const GpuProgram& g : a.gpus) {
    ASSERT_EQ(g.tbs.size(), 1u);  // send to r+1 and receive from r-1 share one tb
    EXPECT_EQ(g.tbs[0].send_peer, (g.rank + 1) % 4);
    EXPECT_EQ(g.tbs[0].recv_peer, (g.rank + 3) % 4);
  }
}

TEST(Builder, InPlaceBuffersFollowTheExecutorsAliasing) {
  const Algorithm ar = testgen::ring_allreduce(3, 1, 1, true);
  EXPECT_EQ(ar.gpus[0].input_chunks, 3);
  EXPECT_EQ(ar.gpus[0].output_chunks, 0);
  const Algorithm ag = testgen::ring_allgather(3, true);
  EXPECT_EQ(ag.gpus[0].input_chunks, 0);
  EXPECT_EQ(ag.gpus[0].output_chunks, 3);
  const Algorithm rs = testgen::ring_reducescatter(3, true);
  EXPECT_EQ(rs.gpus[0].input_chunks, 3);
  EXPECT_EQ(rs.gpus[0].output_chunks, 0);
  EXPECT_TRUE(rs.inplace);
  EXPECT_FALSE(rs.outofplace);
}

TEST(Builder, HeaderFieldsFollowMscclTools) {
  const Algorithm a = testgen::ring_allreduce(4, 2, 3, false);
  EXPECT_EQ(a.nchannels, 3);        // max channel + 1
  EXPECT_EQ(a.nchunksperloop, 8);   // max over ranks of max(i_chunks, o_chunks)
  EXPECT_EQ(a.min_bytes, 0u);
  EXPECT_EQ(a.max_bytes, 0u);
  for (const GpuProgram& g : a.gpus)
    for (std::size_t t = 1; t < g.tbs.size(); ++t) {
      const auto key = [](const ThreadBlock& tb) { return std::tuple(tb.send_peer, tb.recv_peer, tb.channel); };
      EXPECT_LT(key(g.tbs[t - 1]), key(g.tbs[t]));  // sorted by (send, recv, channel)
    }
}

// The executor cuts gather's per-rank input (count elements, sizeMultiplier 1) into nchunksperloop
// chunks; the root's output then holds ngpus x nchunksperloop. Scatter is the mirror image.
TEST(Builder, GatherAndScatterChunkTheirPerRankShare) {
  const Algorithm g = testgen::direct_gather(4);
  EXPECT_EQ(g.gpus[0].input_chunks, 1);
  EXPECT_EQ(g.gpus[0].output_chunks, 4);
  EXPECT_EQ(g.nchunksperloop, 1);
  const Algorithm s = testgen::direct_scatter(4);
  EXPECT_EQ(s.gpus[0].input_chunks, 4);
  EXPECT_EQ(s.nchunksperloop, 1);
}

TEST(Builder, ExtraDependenciesBecomeNopsAndDependeesPublish) {
  // Rank 0 receives scratch 0 from rank 1 and scratch 1 from rank 2 on two tbs, then reduces one into
  // the other locally: the reduce waits on both receives, one dep on the op and one on a nop.
  AlgorithmBuilder b(BuilderSpec{"twodeps", Collective::Send, 3, Protocol::LL, 1, 1, false});
  b.send(in(1, 0), scratch(0, 0));
  b.send(in(2, 0), scratch(0, 1));
  b.reduce(scratch(0, 0), scratch(0, 1));
  const Algorithm a = b.build();
  EXPECT_TRUE(check(a).ok());
  const GpuProgram& g = a.gpus[0];
  ASSERT_EQ(g.tbs.size(), 3u);  // local (-1,-1), recv from 1, recv from 2
  const ThreadBlock& local = g.tbs[0];
  ASSERT_EQ(local.steps.size(), 2u);
  EXPECT_EQ(local.steps[0].type, OpType::Nop);
  EXPECT_EQ(local.steps[0].dep_tb, 1);
  EXPECT_EQ(local.steps[1].type, OpType::Reduce);
  EXPECT_EQ(local.steps[1].dep_tb, 2);
  EXPECT_TRUE(g.tbs[1].steps[0].has_dep);
  EXPECT_TRUE(g.tbs[2].steps[0].has_dep);
}

TEST(Builder, DropsDependenciesAlreadyWaitedOn) {
  // Two local reduces read chunks the same receive tb wrote; the second wait is implied by the first.
  AlgorithmBuilder b(BuilderSpec{"implied", Collective::Send, 2, Protocol::LL, 2, 2, false});
  b.send(in(1, 0), scratch(0, 0));
  b.send(in(1, 1), scratch(0, 1));
  b.reduce(scratch(0, 1), out(0, 0));
  b.reduce(scratch(0, 0), out(0, 1));
  const Algorithm a = b.build();
  EXPECT_TRUE(check(a).ok());
  const ThreadBlock& local = a.gpus[0].tbs[0];
  ASSERT_EQ(local.steps.size(), 2u);
  EXPECT_EQ(local.steps[0].dep_step, 1);
  EXPECT_EQ(local.steps[1].dep_tb, -1);
}

TEST(Builder, LongReduceChainsAreSplitForTheExecutor) {
  AlgorithmBuilder b(BuilderSpec{"fold", Collective::Send, 1, Protocol::LL, 1, 1, false});
  for (int k = 0; k < 20; ++k) b.reduce(scratch(0, k), out(0, 0));
  const Algorithm a = b.build();
  EXPECT_TRUE(check(a).ok()) << check(a).issues.at(0).message;
  EXPECT_TRUE(a.gpus[0].tbs[0].steps[15].has_dep);  // 16th re ends the first fused chain
}

TEST(Builder, ThrowsWhenATbWouldExceedTheStepLimit) {
  AlgorithmBuilder b(BuilderSpec{"long", Collective::Send, 2, Protocol::LL, 65, 65, false});
  for (int k = 0; k < 65; ++k) b.send(in(0, k), out(1, k));
  try {
    b.build();
    FAIL();
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("needs 65 steps, more than MSCCL_MAX_NUM_STEPS=64"));
  }
}

// The channel count is decided by the recorded calls (build() refuses before planning); a local op
// pinned to a channel no transfer uses still gets a tb there and counts.
TEST(Builder, ThrowsWhenTheChannelsExceedMaxchannels) {
  AlgorithmBuilder b(BuilderSpec{"wide", Collective::Send, 2, Protocol::LL, 1, 1, false});
  b.send(in(0, 0), out(1, 0), 32);
  try {
    b.build();
    FAIL();
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("uses 33 channels, more than MAXCHANNELS=32"));
  }
  AlgorithmBuilder pinned(BuilderSpec{"pinned", Collective::Send, 2, Protocol::LL, 1, 1, false});
  pinned.send(in(0, 0), out(1, 0), 0);
  pinned.copy(out(1, 0), scratch(1, 0), 5);
  const Algorithm a = pinned.build();
  EXPECT_EQ(a.nchannels, 6);
  EXPECT_TRUE(std::any_of(a.gpus[1].tbs.begin(), a.gpus[1].tbs.end(),
                          [](const ThreadBlock& tb) { return tb.channel == 5 && tb.send_peer < 0 && tb.recv_peer < 0; }));
}

TEST(Builder, RejectsBadCallsWhereTheyAreMade) {
  AlgorithmBuilder b(BuilderSpec{"bad", Collective::AllReduce, 2, Protocol::LL, 2, 2, false});
  EXPECT_THROW(b.send(in(0, 0), out(0, 0)), DiagError);           // send to itself
  EXPECT_THROW(b.copy(in(0, 0), out(1, 0)), DiagError);           // copy across ranks
  EXPECT_THROW(b.send(in(0, 2), out(1, 0)), DiagError);           // past the input buffer
  EXPECT_THROW(b.send(in(0, 0), out(2, 0)), DiagError);           // no rank 2
  EXPECT_THROW(b.send({0, BufferKind::Input, 0, 2}, out(1, 0)), DiagError);  // count mismatch
  EXPECT_THROW(b.send(in(0, 0), out(1, 0), -1), DiagError);       // channel
}

TEST(Builder, BigRingAllreduceStaysWithinExecutorLimits) {
  const Algorithm a = testgen::ring_allreduce(16, 4, 8, false);
  const CheckReport r = check(a);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.issues[0].message);
}

}  // namespace
}  // namespace ccforge::ir

namespace ccforge::ir {
namespace {

TEST(Builder, ForwardedPartialSumsInScratchAreNotStored) {
  // Chain reduce 3 -> 2 -> 1 -> 0: ranks 1 and 2 add their input (copied to scratch) to what they
  // receive and forward it; the scratch result is never read again, so they use rrs.
  const Algorithm a = testgen::chain_reduce(4, 1);
  EXPECT_EQ(count_type(a, OpType::RecvReduceSend), 2);
  EXPECT_EQ(count_type(a, OpType::RecvReduceCopySend), 0);
  EXPECT_EQ(count_type(a, OpType::RecvReduceCopy), 1);  // the root keeps the sum in its output
  EXPECT_TRUE(check(a).ok());
}

}  // namespace
}  // namespace ccforge::ir
