// Plain-data tables the cuda backend's host code builds and its kernel interprets: one entry per
// threadblock of every rank that shares a device, its steps, and its connections (formats.md §1.4).
#pragma once

#include <cstdint>

namespace ccforge::executor::cuda {

// Op codes as msccl_struct.h numbers them (formats.md §1.3); nop is -1 there.
enum DeviceOp : std::int8_t { kSend = 0, kRecv, kRecvCopySend, kRecvReduceSend, kRecvReduceCopy, kRecvReduceCopySend, kCopy, kReduce, kNop };
enum DeviceBuf : std::int8_t { kInput = 0, kOutput = 1, kScratch = 2 };
enum DeviceProto : std::int8_t { kProtoSimple = 0, kProtoLL = 1 };
// Element types in ccforge::DataType order (NCCL's), so that a DataType casts to its DeviceType.
enum DeviceType : std::int8_t { kInt8 = 0, kUint8, kInt32, kUint32, kInt64, kUint64, kHalf, kFloat, kDouble, kBFloat16 };

struct DeviceStep {
  std::int8_t op;
  std::int8_t src_buf;
  std::int8_t dst_buf;
  std::int8_t has_dep;
  std::int32_t src_off;
  std::int32_t dst_off;
  std::int32_t count;
  std::int32_t dep_tb;
  std::int32_t dep_step;
};

// One direction of one (sender, receiver, channel) connection. The data ring and `tail` live on the
// receiver's device, `head` on the sender's; both are reached through peer mappings.
struct DeviceConnection {
  std::uint64_t* ring;                // capacity transfers of transfer_words 8-byte words (LL: 2 words per line)
  volatile std::uint64_t* tail;       // transfers published by the sender (Simple)
  volatile std::uint64_t* head;       // transfers consumed by the receiver
  std::uint64_t* sent;                // sender's running transfer count, kept across launches
  std::uint64_t* received;            // receiver's running transfer count
  std::int32_t capacity;              // transfers in flight: NCCL_STEPS / slots per transfer
  std::int64_t transfer_words;        // ring words per transfer slot
};

struct DeviceRank {
  char* buffers[3];                   // input, output, scratch (in-place: input and output alias)
  volatile std::uint64_t* tb_flags;   // one per tb of this rank
};

struct DeviceTb {
  std::int32_t rank;                  // index into KernelArgs::ranks
  std::int32_t tb;                    // tb id within its rank
  std::int32_t first_step;            // index into KernelArgs::steps
  std::int32_t nsteps;
  std::int32_t send;                  // index into KernelArgs::connections, -1 none
  std::int32_t recv;
};

// Why a kernel stopped early; written once into host-mapped memory.
struct DeviceStatus {
  std::int32_t code;                  // 0 ok, 1 watchdog timeout
  std::int32_t rank;
  std::int32_t tb;
  std::int32_t step;
  std::int32_t waiting;               // 1 dependency, 2 send slot, 3 receive
};

struct KernelArgs {
  const DeviceTb* tbs;
  const DeviceStep* steps;
  const DeviceRank* ranks;
  const DeviceConnection* connections;
  volatile DeviceStatus* status;      // host-mapped
  volatile std::int32_t* abort;       // host-mapped; set when any block times out
  std::int64_t chunk_elems;
  std::int64_t tile_elems;
  std::int64_t iterations;            // tiles per chunk
  std::int32_t max_allowed_count;
  std::int32_t elem_bytes;
  std::int32_t red_op;                // executor::RedOp as int
  std::int8_t protocol;               // DeviceProto
  std::uint64_t call_index;           // calls launched before this one, for monotone flags
  std::uint64_t timeout_ns;           // watchdog: a spin longer than this aborts the kernel
};

// Flags count (iteration, step) as the host backend does: value = iteration * stride + step + 1.
inline constexpr std::uint64_t kFlagStride = std::uint64_t{1} << 20;

}  // namespace ccforge::executor::cuda
