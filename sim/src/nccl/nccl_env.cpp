// NCCL environment variables as NCCL itself parses them: NCCL_ALGO/NCCL_PROTO by parseList (NCCL v2.28.9
// src/graph/tuning.cc: "[^]elem,elem;func:[^]elem,..." case-insensitive, a '^' list enables all but
// its elements, only the first entry may lack a function prefix), integers by NCCL_PARAM (src/misc/param.cc:
// strtoll, base auto-detected).
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "ccforge/sim/nccl_numbering.hpp"
#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

bool equal_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(sep, start);
    if (end != start && start < text.size()) parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

template <std::size_t N>
NcclEnableList parse_enable_list(std::string_view name, std::string_view value,
                                 const std::array<std::string_view, N>& elements, std::string_view where) {
  NcclEnableList list;
  const NcclMask all = (1u << N) - 1;
  list.per_function.fill(all);
  const auto bad = [&](const std::string& problem) {
    fail_at(std::string(where), 0, fmt::format("{}={}: {}", name, value, problem),
            fmt::format("use a comma list of {} (\"^\" first to exclude), optionally per function as "
                        "\"ring;allreduce:tree,ring\"",
                        fmt::join(elements, ", ")));
  };
  const std::vector<std::string_view> entries = split(value, ';');
  if (entries.empty()) bad("empty list");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::string_view entry = entries[i];
    std::optional<std::string_view> function;
    if (const auto colon = entry.find(':'); colon != std::string_view::npos) {
      function = entry.substr(0, colon);
      entry = entry.substr(colon + 1);
    } else if (i > 0) {
      bad("every entry but the first needs a function prefix");
    }
    const bool exclude = entry.starts_with('^');
    if (exclude) entry.remove_prefix(1);
    NcclMask mask = 0;
    for (std::string_view token : split(entry, ',')) {
      const auto it = std::find_if(elements.begin(), elements.end(), [&](std::string_view e) { return equal_nocase(e, token); });
      if (it == elements.end()) bad(fmt::format("unknown element \"{}\"", token));
      mask |= 1u << (it - elements.begin());
    }
    if (exclude) mask = all & ~mask;
    bool matched = false;
    for (std::size_t f = 0; f < kNcclFuncNames.size(); ++f) {
      if (function && !equal_nocase(*function, kNcclFuncNames[f])) continue;
      list.per_function[f] = mask;
      matched = true;
    }
    if (!matched) bad(fmt::format("unknown function \"{}\" (NCCL's: {})", *function, fmt::join(kNcclFuncNames, ", ")));
  }
  return list;
}

int parse_count(std::string_view name, std::string_view value, std::string_view where, long long min_value) {
  const std::string text(value);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min_value || v > 1 << 20) {
    fail_at(std::string(where), 0, fmt::format("{}={}: not an integer >= {}", name, value, min_value),
            fmt::format("give {} an integer as NCCL reads it (decimal or 0x hex)", name));
  }
  return static_cast<int>(v);
}

// NCCL's path types by name (NCCL v2.28.9 src/graph/topo.cc topoPathTypeStr) or, as NCCL also accepts,
// a number.
std::string parse_path_level(std::string_view name, std::string_view value, std::string_view where) {
  constexpr std::array<std::string_view, 12> kPathTypes = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                                           "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};
  const bool named = std::any_of(kPathTypes.begin(), kPathTypes.end(), [&](std::string_view t) { return equal_nocase(t, value); });
  if (!named) parse_count(name, value, where, 0);
  return std::string(value);
}

}  // namespace

int nccl_func_index(ir::Collective coll) {
  switch (coll) {
    case ir::Collective::Broadcast: return CCF_NCCL_FUNC_BROADCAST;
    case ir::Collective::Reduce: return CCF_NCCL_FUNC_REDUCE;
    case ir::Collective::AllGather: return CCF_NCCL_FUNC_ALLGATHER;
    case ir::Collective::ReduceScatter: return CCF_NCCL_FUNC_REDUCESCATTER;
    case ir::Collective::AllReduce: return CCF_NCCL_FUNC_ALLREDUCE;
    default: return -1;  // send/recv based: NCCL_ALGO/NCCL_PROTO do not apply
  }
}

NcclVersion parse_nccl_version(std::string_view text, std::string_view where) {
  const std::vector<std::string_view> parts = split(text, '.');
  const bool digits = std::all_of(parts.begin(), parts.end(), [](std::string_view p) {
    return !p.empty() && p.size() <= 4 && std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
  });
  if (parts.size() < 2 || parts.size() > 3 || !digits) {
    fail_at(std::string(where), 0, fmt::format("\"{}\" is not an NCCL version", text), "write it as NCCL prints it, e.g. 2.26.2");
  }
  return {std::stoi(std::string(parts[0])), std::stoi(std::string(parts[1]))};
}

void set_nccl_version(SimParams& params, NcclVersion version) {
  params.constants.nccl_version = version;
  params.param_sources["sim.nccl.version"] = "--nccl-version";
}

bool NcclEnableList::allows(ir::Collective coll, int index) const {
  const int f = nccl_func_index(coll);
  return f < 0 || (per_function[static_cast<std::size_t>(f)] >> index & 1u) != 0;
}

EnvUse apply_nccl_env(std::string_view assignment, NcclSettings& s, std::string_view where) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    fail_at(std::string(where), 0, fmt::format("\"{}\" is not NAME=VALUE", assignment),
            "write it as in the run's environment, e.g. --env NCCL_ALGO=Ring");
  }
  const std::string_view name = assignment.substr(0, eq);
  const std::string_view value = assignment.substr(eq + 1);
  if (name == "NCCL_ALGO") {
    s.algorithms = parse_enable_list(name, value, kNcclAlgoNames, where);
  } else if (name == "NCCL_PROTO") {
    s.protocols = parse_enable_list(name, value, kNcclProtoNames, where);
  } else if (name == "NCCL_MIN_NCHANNELS" || name == "NCCL_MIN_NRINGS") {
    s.min_channels = parse_count(name, value, where, 0);
  } else if (name == "NCCL_MAX_NCHANNELS" || name == "NCCL_MAX_NRINGS") {
    s.max_channels = parse_count(name, value, where, 1);
  } else if (name == "NCCL_MIN_CTAS") {
    s.min_ctas = parse_count(name, value, where, 1);
  } else if (name == "NCCL_MAX_CTAS") {
    s.max_ctas = parse_count(name, value, where, 1);
  } else if (name == "NCCL_NVLS_ENABLE") {
    s.nvls = parse_count(name, value, where, 0) != 0;
  } else if (name == "NCCL_PAT_ENABLE") {
    s.pat = parse_count(name, value, where, 0) != 0;
  } else if (name == "NCCL_IB_QPS_PER_CONNECTION") {
    s.ib_qps_per_connection = parse_count(name, value, where, 1);
    return EnvUse::NotModelled;
  } else if (name == "NCCL_NET_GDR_LEVEL") {
    s.net_gdr_level = parse_path_level(name, value, where);
    return EnvUse::NotModelled;
  } else if (name == "NCCL_COLLNET_ENABLE") {
    // CollNet needs a SHARP fabric and NCCL's plugin; ccforge models none, so on or off changes nothing.
    parse_count(name, value, where, 0);
    return EnvUse::NotModelled;
  } else {
    return EnvUse::Unknown;
  }
  return EnvUse::Modelled;
}

int nccl_channels(int graph_channels, const NcclSettings& s, int max_channels) {
  const int upper = std::min({graph_channels, s.max_channels.value_or(max_channels), s.max_ctas.value_or(max_channels)});
  const int lower = std::max(s.min_channels.value_or(0), s.min_ctas.value_or(1));
  return std::clamp(std::max(upper, lower), 1, max_channels);
}

}  // namespace ccforge::sim
