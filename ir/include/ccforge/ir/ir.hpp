// Public interface of the ir part: the in-memory algorithm IR, exactly as expressive as MSCCL XML
// (msccl-executor-nccl / RCCL), its import and export, and the checker that proves an algorithm
// correct and deadlock-free without running it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/units.hpp"
#include "ccforge/ir/executor_facts.hpp"

namespace ccforge::ir {

// Names as the executor spells them in `coll` (formats.md §1.2).
enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce, Gather, Scatter, Send, Recv, AllToAllV };
enum class Protocol { Simple, LL, LL128 };
enum class OpType { Send, Recv, RecvCopySend, RecvReduceSend, RecvReduceCopy, RecvReduceCopySend, Copy, Reduce, Nop };
enum class BufferKind { Input, Output, Scratch };

const char* to_string(Collective c);    // "allreduce", ...
const char* to_string(Protocol p);      // "Simple", "LL", "LL128"
const char* to_string(OpType t);        // "s", "r", "rcs", ...
char to_char(BufferKind b);             // 'i', 'o', 's'
std::optional<Collective> collective_from_string(std::string_view s);
std::optional<Protocol> protocol_from_string(std::string_view s);  // case-insensitive ("ll128" ok)

// Size conventions (sizes.cpp). A "size" in ccforge's CLIs and CSVs is nccl-tests' size: the total over
// ranks for allgather, reducescatter, alltoall, gather and scatter; the per-rank buffer for allreduce,
// broadcast and reduce. The executor instead compares minBytes/maxBytes with nBytes = count x sizeof(T) x
// sizeMultiplier (formats.md §1.7), which equals the size except for gather and scatter (size / ngpus).
int ranks_in_size(Collective c, int ngpus);  // ngpus where the size is a total over ranks, else 1
ByteCount count_bytes(Collective c, int ngpus, ByteCount size);     // count x sizeof(T) (rounded down)
ByteCount executor_bytes(Collective c, int ngpus, ByteCount size);  // nBytes of a call of this size (rounded down)
// Smallest executor nBytes whose size is at least `size` (the lower end of a band).
ByteCount executor_bytes_at_least(Collective c, int ngpus, ByteCount size);

// Chunks of the buffers every rank passes the executor, for nchunksperloop (chunk = count x
// sizeMultiplier / nchunksperloop elements): count x sizeof(T) bytes each, except the input of
// reducescatter, alltoall and scatter and the output of allgather, alltoall and gather (ngpus times that).
// nullopt for send, recv and alltoallv (no fixed buffers), for nchunksperloop < 1 and where nchunksperloop
// does not split the per-rank share into whole chunks.
struct ExecutorBuffers {
  std::int64_t input_chunks = 0;  // 64-bit: ngpus x nchunksperloop of an imported file may exceed int
  std::int64_t output_chunks = 0;
};
std::optional<ExecutorBuffers> executor_buffers(Collective c, int ngpus, int nchunksperloop);
// The nchunksperloop whose executor buffers are those a program addresses with `input_chunks` and
// `output_chunks` per rank (counted before in-place aliasing).
int chunks_per_loop(Collective c, int input_chunks, int output_chunks);

// nccl-tests busbw = algbw x this factor (nccl-tests doc/PERFORMANCE.md): 2(p-1)/p for allreduce,
// (p-1)/p for allgather, reducescatter, alltoall(v), gather and scatter, 1 otherwise.
double bus_bandwidth_factor(Collective c, int ngpus);

struct Step {
  OpType type = OpType::Nop;
  BufferKind src_buf = BufferKind::Input;
  int src_off = -1;
  BufferKind dst_buf = BufferKind::Output;
  int dst_off = -1;
  int count = 0;
  int dep_tb = -1;    // depid: tb (same GPU) this step waits on, -1 none
  int dep_step = -1;  // deps: step index in dep_tb that must have completed
  bool has_dep = false;  // some other tb waits on this step
  int line = 0;          // source line when imported, 0 otherwise
};

struct ThreadBlock {
  int id = 0;
  int send_peer = -1;
  int recv_peer = -1;
  int channel = 0;
  std::vector<Step> steps;
  int line = 0;
};

struct GpuProgram {
  int rank = 0;
  int input_chunks = 0;
  int output_chunks = 0;
  int scratch_chunks = 0;
  std::vector<ThreadBlock> tbs;  // index == tb id
  int line = 0;
};

struct Algorithm {
  std::string name;
  Collective collective = Collective::AllReduce;
  Protocol protocol = Protocol::Simple;
  int ngpus = 0;
  int nchannels = 1;
  int nchunksperloop = 1;
  bool inplace = false;
  bool outofplace = true;
  ByteCount min_bytes = 0;
  ByteCount max_bytes = 0;  // 0 = no upper limit
  std::vector<GpuProgram> gpus;  // index == rank
  std::string source_file;       // where it was imported from, for messages
};

// Import. Accepts every real MSCCL file (nop chains, fused re chains, scratch, maxBytes="0", comments,
// unknown extra attributes). Throws DiagError "FILE:LINE: problem (fix)" for anything malformed.
Algorithm read_msccl_xml(const std::filesystem::path& path);
Algorithm parse_msccl_xml(std::string_view text, const std::string& file_label);

// Export in the canonical form the executor's hand-written parser accepts (formats.md §1.6, §6):
// no declaration, two-space indent, one element per line, all attributes, double quotes.
// export -> import -> export is byte-identical.
std::string to_msccl_xml(const Algorithm& algo);
void write_msccl_xml(const Algorithm& algo, const std::filesystem::path& path);  // atomic

// One thing wrong with an algorithm, located as precisely as possible (-1 where not applicable).
struct CheckIssue {
  std::string rule;  // short id: "deadlock", "race", "postcondition", "limit.steps", ...
  int rank = -1;
  int tb = -1;
  int step = -1;
  int line = 0;
  std::string message;
};

struct CheckReport {
  std::vector<CheckIssue> issues;
  std::vector<std::string> notes;  // what was not proven and why (e.g. no postcondition for sendrecv)
  bool ok() const { return issues.empty(); }
};

// Proves structure, limits, deadlock freedom, race freedom and the collective's postcondition by
// symbolic execution. Runs in O(steps * log) for structure and ordering.
CheckReport check(const Algorithm& algo, const Limits& limits = {});

// Summary for `ccforge ir show`.
struct AlgorithmStats {
  struct PerRank { int tbs = 0; int steps = 0; int nops = 0; };
  std::vector<PerRank> per_rank;
  // chunks sent from rank i to rank j (per loop iteration), row-major ngpus x ngpus
  std::vector<std::int64_t> chunks_sent;
  int critical_path_steps = 0;  // longest chain of steps through tb order, deps and send/recv pairs
  int max_steps_per_tb = 0;
  int total_steps = 0;
};
AlgorithmStats compute_stats(const Algorithm& algo);

}  // namespace ccforge::ir
