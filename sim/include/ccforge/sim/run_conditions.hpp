// The conditions of a benchmark run that change what NCCL does and what nccl-tests reports: how the
// benchmark drove the GPUs (its launch mode) and the NCCL environment variables it ran with, in NCCL's
// own names and value syntax. Part of SimParams; `ccforge sim/tune/calibrate/validate` take them as
// `-g`/`-t` and `--env NAME=VALUE`.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "ccforge/common/nccl_numbering.h"
#include "ccforge/ir/ir.hpp"
#include "ccforge/sim/constants.hpp"

namespace ccforge::sim {

// nccl-tests `-t THREADS -g GPUS`: each thread drives GPUS devices; the default is one process per GPU
// (an MPI launch, `-g 1`).
struct LaunchMode {
  int threads = 1;
  int gpus_per_thread = 1;
};

// NCCL's tuned collectives, algorithms and protocols by name, in its own index order (nccl_numbering.h).
inline constexpr std::array<std::string_view, CCF_NCCL_NUM_TUNED_FUNCS> kNcclFuncNames = {CCF_NCCL_FUNC_NAMES};
inline constexpr std::array<std::string_view, CCF_NCCL_NUM_ALGORITHMS> kNcclAlgoNames = {CCF_NCCL_ALGO_NAMES};
inline constexpr std::array<std::string_view, CCF_NCCL_NUM_PROTOCOLS> kNcclProtoNames = {CCF_NCCL_PROTO_NAMES};

// A set of NCCL algorithm (or protocol) indices, one bit each.
using NcclMask = unsigned;

// What NCCL_ALGO / NCCL_PROTO allow, per collective (NCCL 2.24+ accepts "ring;allreduce:tree,ring").
struct NcclEnableList {
  std::array<NcclMask, CCF_NCCL_NUM_TUNED_FUNCS> per_function{};  // by ncclFunc_t (kNcclFuncNames)
  // Whether `index` is allowed for `coll`; collectives NCCL runs as send/recv are not restricted.
  bool allows(ir::Collective coll, int index) const;
};

// NCCL variables a run set; each unset one keeps NCCL's default.
struct NcclSettings {
  std::optional<NcclEnableList> algorithms;  // NCCL_ALGO
  std::optional<NcclEnableList> protocols;   // NCCL_PROTO
  std::optional<int> min_channels;           // NCCL_MIN_NCHANNELS (legacy NCCL_MIN_NRINGS)
  std::optional<int> max_channels;           // NCCL_MAX_NCHANNELS (legacy NCCL_MAX_NRINGS)
  std::optional<int> min_ctas;               // NCCL_MIN_CTAS
  std::optional<int> max_ctas;               // NCCL_MAX_CTAS
  std::optional<bool> nvls;                  // NCCL_NVLS_ENABLE (0 disables NVLS and NVLSTree)
  std::optional<int> ib_qps_per_connection;  // NCCL_IB_QPS_PER_CONNECTION
  std::optional<std::string> net_gdr_level;  // NCCL_NET_GDR_LEVEL: a path type (LOC, PIX, ..., SYS) or its number
  std::optional<bool> pat;                   // NCCL_PAT_ENABLE
};

// How one NAME=VALUE was taken.
enum class EnvUse {
  Modelled,     // changes the simulation
  NotModelled,  // a real NCCL variable the model has no mechanism for (said so on stderr by the CLI)
  Unknown,      // not a variable ccforge knows (a one-line warning)
};

// Applies one `NAME=VALUE` as NCCL reads it. Throws DiagError (naming `where`, e.g. "--env") for a
// malformed assignment or a value NCCL itself would reject (an unknown algorithm name, a negative count).
EnvUse apply_nccl_env(std::string_view assignment, NcclSettings& settings, std::string_view where);

// The channel count NCCL runs collectives on, from what its graph search found (`graph_channels`) and
// the settings: min(graph, MAX_NCHANNELS, MAX_CTAS) raised to max(MIN_NCHANNELS, MIN_CTAS), capped at
// `max_channels` (NCCL v2.28.9 src/graph/connect.cc ncclTopoPostset, copyChannels).
int nccl_channels(int graph_channels, const NcclSettings& settings, int max_channels);

// The NCCL version whose choices to reproduce, "2.26.2" or "2.26" (tables are per major.minor).
// Throws DiagError (naming `where`) when `text` is not a version; a version without tables is refused
// when a simulation first needs them.
NcclVersion parse_nccl_version(std::string_view text, std::string_view where);

}  // namespace ccforge::sim
