// The runtime targets as data. Sources, read at these commits:
//   msccl-executor-nccl: Azure/msccl-executor-nccl @c6f6b36d1a4c7ae44916fcc5c8e32c95cce2ae54 (2024-12-13)
//   RCCL:                ROCm/rccl @0cbce2a7571c907554199fad7e905f16ec0a565c (2024-10-24)
// File names below are relative to those repositories.
#include "ccforge/ir/runtime.hpp"

#include <algorithm>

namespace ccforge::ir {

namespace {

using C = Collective;

// Both parsers count, per rank, <algo>, every <gpu>, and this rank's <tb> and <step> elements into a
// MAX_NODES = 4096 array (src/include/msccl/msccl_parser.h) and fail when the count reaches it before
// the document ends (msccl_parser.cc mscclXmlLoadSub), so at most 4095 may be counted. MAX_SUBS = 1024
// children per element are stored without a bounds check.
constexpr int kMaxCountedXmlNodes = 4096 - 1;
constexpr int kMaxSubs = 1024;
// mscclThreadBlock::dependentBid is int8_t and srcOffset/dstOffset are int16_t in both runtimes'
// src/include/msccl/msccl_struct.h; the kernel reads mscclFlags + dependentBid (src/device/msccl_kernel.cu,
// RCCL src/device/msccl_kernel_impl.h).
constexpr int kMaxInt8 = 127;
constexpr int kMaxInt16 = 32767;

RuntimeTarget msccl_nccl() {
  RuntimeTarget t;
  t.runtime = Runtime::MscclNccl;
  t.name = "msccl-nccl";
  t.title = "msccl-executor-nccl";
  t.limits = Limits{};  // executor_facts.hpp
  // msccl_struct.h MSCCL_MAX_NUM_THREAD_BLOCKS = per channel x MAXCHANNELS.
  t.max_tbs_per_rank = kMscclMaxTbsPerChannel * kMaxChannels;
  t.max_dependee_tb = kMaxInt8;
  t.max_offset = kMaxInt16;
  t.max_counted_xml_nodes = kMaxCountedXmlNodes;
  t.max_ranks = kMaxSubs;
  // msccl_lifecycle.cc mscclFallBackSavedParams: the entry points that can run an MSCCL algorithm.
  t.scheduled = {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll, C::Broadcast, C::Reduce, C::Send, C::Recv};
  // msccl_lifecycle.cc: NCCL_PARAM(MscclEnabled, "MSCCL_ENABLE", 1); MSCCL_ALGO_DIR names the directory.
  t.environment = {{"NCCL_MSCCL_ENABLE", "1"}};
  // msccl_lifecycle.cc mscclInit: "MSCCL doesn't support multiple GPUs in one process" (intraRanks > 1).
  t.process_rule = "one GPU per process (MSCCL turns itself off in a process that drives several GPUs, e.g. nccl-tests -g 8)";
  return t;
}

// RCCL's MSCCL is msccl-executor-nccl's ported: the same parser, struct field widths and node array.
RuntimeTarget rccl() {
  RuntimeTarget t = msccl_nccl();
  t.runtime = Runtime::Rccl;
  t.name = "rccl";
  t.title = "RCCL's MSCCL (ROCm >= 6.0)";
  // src/include/msccl/msccl_struct.h: MSCCL_MAX_NUM_THREAD_BLOCKS 64 (steps, count, per-channel and
  // fusion limits as msccl-executor-nccl); MAXCHANNELS 128 (src/include/device.h), and the parser accepts
  // a channel up to MAXCHANNELS (msccl_parser.cc).
  t.limits.max_channels = 128;
  t.max_tbs_per_rank = 64;
  // src/misc/msccl/msccl_lifecycle.cc mscclRunSavedParams: gather and scatter have entry points too.
  t.scheduled = {C::AllReduce, C::AllGather, C::ReduceScatter, C::AllToAll, C::Broadcast, C::Reduce,
                 C::Gather,    C::Scatter,   C::Send,          C::Recv,     C::AllToAllV};
  // msccl_lifecycle.cc: RCCL_PARAM(MscclEnabled, "MSCCL_ENABLE", 1); MSCCL runs only on machine models
  // marked mscclEnabled (src/graph/rome_models.cc) unless RCCL_MSCCL_FORCE_ENABLE=1.
  t.environment = {{"RCCL_MSCCL_ENABLE", "1"}, {"RCCL_MSCCL_FORCE_ENABLE", "1"}};
  // msccl_lifecycle.cc: RCCL_PARAM(MscclEnableSingleProcess, "MSCCL_ENABLE_SINGLE_PROCESS", 1).
  t.process_rule = "one or several GPUs per process (RCCL_MSCCL_ENABLE_SINGLE_PROCESS=1, RCCL's default)";
  return t;
}

}  // namespace

const RuntimeTarget& runtime_target(Runtime runtime) {
  static const RuntimeTarget kMscclNccl = msccl_nccl();
  static const RuntimeTarget kRccl = rccl();
  return runtime == Runtime::Rccl ? kRccl : kMscclNccl;
}

Runtime runtime_for_vendor(bool amd_gpu) { return amd_gpu ? Runtime::Rccl : Runtime::MscclNccl; }

std::optional<Runtime> runtime_from_string(std::string_view name) {
  for (Runtime r : {Runtime::MscclNccl, Runtime::Rccl})
    if (runtime_target(r).name == name) return r;
  return std::nullopt;
}

// The names are string literals, so their views are null-terminated.
const char* to_string(Runtime runtime) { return runtime_target(runtime).name.data(); }

std::string runtime_names() {
  return std::string(runtime_target(Runtime::MscclNccl).name) + ", " + std::string(runtime_target(Runtime::Rccl).name);
}

bool is_rooted(Collective c) {
  return c == C::Broadcast || c == C::Reduce || c == C::Gather || c == C::Scatter;
}

bool schedules(const RuntimeTarget& target, Collective c) {
  return std::find(target.scheduled.begin(), target.scheduled.end(), c) != target.scheduled.end();
}

}  // namespace ccforge::ir
