// Runtime targets: what each MSCCL runtime's loader, scheduler and kernel accept beyond what its XML
// parser checks (formats.md §1.5, §1.5a), as data, and the checker rules that hold an algorithm to them.
// Every constant is cited in runtime.cpp with the runtime's source file and commit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ccforge/ir/ir.hpp"

namespace ccforge::ir {

enum class Runtime { MscclNccl, Rccl };

struct RuntimeTarget {
  Runtime runtime = Runtime::MscclNccl;
  std::string_view name;   // the --runtime spelling: "msccl-nccl", "rccl"
  std::string_view title;  // "msccl-executor-nccl", "RCCL's MSCCL (ROCm >= 6.0)"
  Limits limits;           // what the parser enforces per threadblock and step (check() proves them)
  int max_tbs_per_rank = 0;      // MSCCL_MAX_NUM_THREAD_BLOCKS: the parser rejects a larger bid
  int max_dependee_tb = 0;       // dependentBid is an int8_t: a larger depid wraps negative
  int max_offset = 0;            // srcOffset/dstOffset are int16_t
  int max_counted_xml_nodes = 0; // per rank: <algo> + every <gpu> + this rank's <tb>s and <step>s
  int max_ranks = 0;             // <gpu> children of <algo>: MAX_SUBS, not bounds-checked
  std::vector<Collective> scheduled;  // collectives whose API entry point can run an MSCCL file
  bool scheduler_matches_root = false;  // false: a file is used for a call with any root
  // The environment a job needs so that the runtime loads and uses MSCCL_ALGO_DIR, NAME=VALUE each.
  std::vector<std::pair<std::string_view, std::string_view>> environment;
  std::string_view process_rule;  // one sentence: the process layout under which MSCCL runs at all
};

const RuntimeTarget& runtime_target(Runtime runtime);
// The runtime a GPU's vendor ships: RCCL on AMD, msccl-executor-nccl on NVIDIA.
Runtime runtime_for_vendor(bool amd_gpu);
std::optional<Runtime> runtime_from_string(std::string_view name);
const char* to_string(Runtime runtime);
std::string runtime_names();  // "msccl-nccl, rccl" for messages and --help

// Broadcast, reduce, gather and scatter: MSCCL XML has no root, so their files assume root 0.
bool is_rooted(Collective c);
bool schedules(const RuntimeTarget& target, Collective c);

// runtime.ranks alone: nullopt when `target`'s parser can store an algorithm of `ngpus` ranks (MAX_SUBS
// <gpu> elements), else check_loadable's message. It needs no program, so a search can ask before building.
std::optional<std::string> rank_count_misfit(const RuntimeTarget& target, int ngpus);

// The runtime's rules check() does not know, each violation its own issue (rule "runtime.*", with
// rank, tb and step): ranks, threadblocks per rank, dependee threadblock ids, offsets, the parser's node
// count, and, when `multiprocessors` > 0, that all of a rank's threadblocks fit on the GPU at once
// (they spin-wait on each other). The collective's entry point is not judged here (see schedules()).
void check_loadable(const Algorithm& algo, const RuntimeTarget& target, int multiprocessors, CheckReport& report);

// check(algo, target.limits), then check_loadable, then whether the target schedules the collective;
// a rooted file gets a note that the runtime uses it for every root.
CheckReport check(const Algorithm& algo, const RuntimeTarget& target, int multiprocessors);

}  // namespace ccforge::ir
