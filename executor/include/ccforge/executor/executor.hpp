// Public interface of the executor part: runs an ir::Algorithm on real buffers with the semantics of
// msccl-executor-nccl (formats.md §1.3, §1.4, §1.7). Two backends share one interface: `host` (every
// rank and every threadblock a thread, connections with bounded slots) is the correctness oracle that
// runs in CI; `cuda` (one kernel per collective, each block interprets its tb's steps) runs on GPUs.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/data_type.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/ir.hpp"

namespace ccforge::executor {

// Elements are ccforge::DataType (common/data_type.hpp): every type NCCL reduces, on both backends.
// Avg is NCCL's ncclAvg: the sum divided by the rank count. msccl-executor-nccl runs it as a sum with
// a scalar (Azure/msccl-executor-nccl src/misc/msccl/msccl_setup.cc hostToDevRedOp: PreMulSum by
// 1/nRanks for floating types, SumPostDiv by nRanks for integers); the host backend sums and divides
// each receiving rank's result once per call (exact where the sum is a multiple of the rank count).
enum class RedOp { Sum, Prod, Min, Max, Avg };

const char* to_string(RedOp op);  // "sum", "prod", "min", "max", "avg"
std::optional<RedOp> red_op_from_string(std::string_view s);
// The names, "sum, prod, min, max, avg", for messages and help.
std::string red_op_names();

// Whether `c` applies the reduction operator (allreduce, reducescatter, reduce); nccl-tests prints
// redop "none" for the others.
bool applies_reduction(ir::Collective c);

// One element of `t` at `p`, as the reductions see it (half/bfloat16 rounded to nearest even).
void store_element(DataType t, double value, std::byte* p);
double load_element(DataType t, const std::byte* p);

// One collective call as the NCCL API sees it: `count` is the API element count (per rank for
// allgather/reducescatter/alltoall, exactly as ncclAllGather etc. take it).
struct CallSpec {
  ir::Collective collective = ir::Collective::AllReduce;
  std::size_t count = 0;
  DataType dtype = DataType::Float;
  RedOp op = RedOp::Sum;
  bool inplace = false;
  int root = 0;  // broadcast, reduce, gather, scatter
};

// Whether `rank` holds the result of `call` (not so for reduce and gather except at the root).
bool receives_result(const CallSpec& call, int rank);

// Element counts of one rank's buffers for a call, and where the in-place aliases sit
// (formats.md §2.1: allgather/gather sendbuff == recvbuff + rank*count; reducescatter/scatter the reverse).
struct BufferLayout {
  std::size_t send_elems = 0;
  std::size_t recv_elems = 0;
  // In-place calls use one buffer of `inplace_elems`; input and output start at these element offsets.
  std::size_t inplace_elems = 0;
  std::size_t inplace_send_offset = 0;
  std::size_t inplace_recv_offset = 0;
};
BufferLayout buffer_layout(const CallSpec& call, int nranks, int rank);

// Host copies of one rank's buffers. Out-of-place: `send` and `recv` as the API passes them. In-place:
// only `recv` is used, sized BufferLayout::inplace_elems (send is ignored).
struct RankBuffers {
  std::vector<std::byte> send;
  std::vector<std::byte> recv;
};

// The executor's size rule (formats.md §2.1): an algorithm runs a call only when the element count
// splits into whole chunks. Returns the reason when it does not, nullopt when it does.
std::optional<std::string> why_not_runnable(const ir::Algorithm& algo, const CallSpec& call);

struct ExecOptions {
  // A run with no step finishing anywhere for this long is a deadlock: it becomes an error, never a hang.
  std::chrono::milliseconds watchdog{5000};
  // Slots per connection (ir::kNcclSteps); a sender blocks when all are full.
  int slots_per_connection = ir::kNcclSteps;
};

struct Timing {
  double avg_us = 0.0;  // wall time of `iterations` back-to-back calls divided by iterations
  int iterations = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Runs `algo` `iterations` times back to back on `buffers` (one per rank, laid out by buffer_layout)
  // and leaves the final results in them. Throws DiagError for an algorithm that cannot run (bad
  // structure, mismatched send/receive, deadlock caught by the watchdog), naming the file and line.
  virtual Timing run(const ir::Algorithm& algo, const CallSpec& call, std::vector<RankBuffers>& buffers,
                     int iterations) = 0;
  // The vendor library's own collective on the same buffers (NCCL on cuda); nullopt where none exists.
  virtual std::optional<Timing> run_baseline(const CallSpec& call, std::vector<RankBuffers>& buffers,
                                             int iterations) = 0;
};

std::unique_ptr<Backend> make_host_backend(ExecOptions options = {});

// The cuda backend exists when the build found nvcc (CCFORGE_HAVE_CUDA) and a GPU is visible.
// Returns the reason when it cannot be used, nullopt when it can.
std::optional<std::string> cuda_unavailable_reason();
// Throws DiagError with that reason when unavailable. Ranks beyond the number of GPUs share devices.
std::unique_ptr<Backend> make_cuda_backend(ExecOptions options = {});

}  // namespace ccforge::executor
