// What the MSCCL runtime's executor does with an algorithm, as constants and small functions: its
// limits, buffer steps and tiles per protocol, the buffer slots of a connection, the size multiplier and
// what each op reads and writes. The one place these facts live; sim, executor and search read them here.
// Source: Azure/msccl-executor-nccl @c6f6b36d1a4c7ae44916fcc5c8e32c95cce2ae54 (file names relative to it;
// formats.md §1.3, §1.5, §1.7). RCCL's MSCCL is a port with the same values except where runtime.cpp
// says otherwise.
#pragma once

#include "ccforge/common/units.hpp"

namespace ccforge::ir {

enum class Collective;
enum class Protocol;
enum class OpType;

// src/include/device.h `#define NCCL_STEPS 8`: buffer slots of every connection; a sender waits for a
// free one (the peer's head).
inline constexpr int kNcclSteps = 8;
// src/include/msccl/msccl_struct.h `#define MSCCL_CHUNKSTEPS (NCCL_STEPS/2)`: NCCL steps per Simple tile.
inline constexpr int kMscclChunkSteps = kNcclSteps / 2;
// msccl_struct.h `#define MSCCL_MAX_COUNT 72`: a step's cnt must stay below it.
inline constexpr int kMscclMaxCount = 72;
// makefiles/common.mk `MSCCL_MAX_NUM_STEPS ?= 64`: steps per threadblock.
inline constexpr int kMscclMaxNumSteps = 64;
// src/include/device.h `#define MAXCHANNELS 32`.
inline constexpr int kMaxChannels = 32;
// msccl_struct.h `#define MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL 32`, `#define MSCCL_MAX_REDUCE_FUSION 16`.
inline constexpr int kMscclMaxTbsPerChannel = 32;
inline constexpr int kMscclMaxReduceFusion = 16;

// Connection buffers (src/init.cc DEFAULT_BUFFSIZE, DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE with
// device.h NCCL_LL_LINES_PER_THREAD 8, NCCL_LL_MAX_NTHREADS 512, 16-byte ncclLLFifoLine,
// NCCL_LL128_ELEMS_PER_THREAD 120, NCCL_LL128_MAX_NTHREADS 640), each cut into kNcclSteps steps.
inline constexpr ByteCount kSimpleBufferBytes = ByteCount{1} << 22;
inline constexpr ByteCount kLLBufferBytes = 8 * 512 * kNcclSteps * 16;
inline constexpr ByteCount kLL128BufferBytes = 120 * 640 * kNcclSteps * 8;

// The limits the executor's parser enforces per threadblock and step; the checker proves them.
struct Limits {
  int max_steps_per_tb = kMscclMaxNumSteps;
  int max_count = kMscclMaxCount - 1;
  int max_channels = kMaxChannels;
  int max_tbs_per_channel = kMscclMaxTbsPerChannel;  // per direction
  int max_reduce_fusion = kMscclMaxReduceFusion;
};

// Payload of one NCCL step (one connection slot): Simple 512 KiB; LL 32 KiB (half of each 16-byte line
// is flags); LL128 576,000 B (120 of every 128 bytes, device.h NCCL_LL128_DATAELEMS of LINEELEMS).
ByteCount step_bytes(Protocol p);
// NCCL steps one tile of a chunk passes through (msccl_setup.cc mscclSetupCount: chunkSteps for Simple,
// 1 for LL and LL128).
int steps_per_tile(Protocol p);
// Bytes of each chunk one grid-loop iteration of the kernel handles (chunkEffectiveSize): Simple 2 MiB,
// LL 32 KiB, LL128 576,000 B. A step's cnt chunks move as cnt x this per iteration.
ByteCount tile_bytes(Protocol p);
// Chunks one primitive call carries (msccl_setup.cc mscclSetupCount maxAllowedCount: chunkEffectiveSize /
// chunk bytes, at least 1, below MSCCL_MAX_COUNT); msccl_kernel.cu cuts a step of cnt chunks into
// ceil(cnt / this) calls per tile.
int max_allowed_count(Protocol p, ByteCount chunk_bytes);
// Connection steps (buffer slots) one primitive call advances, whatever it carries: a tile's steps.
// Simple: prims_simple.h genericOp runs SlicePerChunk = MSCCL_CHUNKSTEPS / MSCCL_SLICESTEPS slices of
// StepPerSlice = MSCCL_SLICESTEPS steps and waits and posts the empty ones too (its second loop), so a
// call below one tile still takes 4 of the 8 slots; LL and LL128: one step per call.
inline int steps_per_call(Protocol p) { return steps_per_tile(p); }

// The executor's sizeMultiplier: ngpus for allgather, reducescatter, alltoall; 1 otherwise.
int size_multiplier(Collective c, int ngpus);

// What each step type does with connections and buffers (formats.md §1.3).
struct OpTraits {
  bool sends;              // pushes data to tb.send
  bool receives;           // pops data from tb.recv
  bool reads_src;          // reads src[srcoff..+cnt)
  bool writes_dst;         // writes dst[dstoff..+cnt)
  bool reads_dst;          // reads dst before writing it (local reduce)
  bool reduces;            // combines received/dst data with src
  bool parser_checks_src;  // executor bound-checks srcoff against the src buffer
  bool parser_checks_dst;  // executor bound-checks dstoff against the dst buffer
};
OpTraits traits(OpType t);
bool op_sends(OpType t);     // traits(t).sends
bool op_receives(OpType t);  // traits(t).receives

}  // namespace ccforge::ir
