// nccl-tuner.conf: the table `ccforge tune` writes and libnccl-tuner-ccforge.so reads. Header-only
// C++17 with no dependency beyond the standard library, because the plugin is loaded into NCCL and
// must not pull in the project. Versioned, whitespace-separated, one rule per line:
//
//   ccforge-nccl-tuner 1
//   # collective min_bytes max_bytes nodes ranks_per_node algorithm protocol channels
//   allreduce 524288 1048575 2 8 tree ll128 0
//
// Sizes are NCCL's nBytes (allreduce, broadcast, reduce: the per-rank buffer; allgather,
// reducescatter: the total, as nccl-tests counts them), both ends inclusive. Algorithm and protocol
// names are NCCL's (nccl_tuner_abi.h order); channels 0 leaves the channel count to NCCL. '#' starts a
// comment. A call matches a rule of its collective, node count and ranks per node whose band holds it.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ccforge/tuner/nccl_tuner_abi.h"

namespace ccforge::tuner_conf {

inline constexpr std::string_view kMagic = "ccforge-nccl-tuner";
inline constexpr int kVersion = 1;
inline constexpr std::string_view kColumns =
    "# collective min_bytes max_bytes nodes ranks_per_node algorithm protocol channels";

// NCCL's names in its index order (nccl_numbering.h); the table writes them in lower case.
inline constexpr std::string_view kFuncNames[CCF_NCCL_NUM_TUNED_FUNCS] = {CCF_NCCL_FUNC_NAMES};
inline constexpr std::string_view kAlgoNames[CCF_NCCL_NUM_ALGORITHMS] = {CCF_NCCL_ALGO_NAMES};
inline constexpr std::string_view kProtoNames[CCF_NCCL_NUM_PROTOCOLS] = {CCF_NCCL_PROTO_NAMES};

// A name as the table spells it: "AllReduce" -> "allreduce".
inline std::string word(std::string_view name) {
  std::string w(name);
  for (char& c : w) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return w;
}

struct Rule {
  int func = CCF_NCCL_FUNC_ALLREDUCE;
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  int nodes = 1;
  int ranks_per_node = 1;
  int algo = CCF_NCCL_ALGO_RING;
  int proto = CCF_NCCL_PROTO_SIMPLE;
  int channels = 0;  // 0: NCCL's own count
};

struct ParseResult {
  std::vector<Rule> rules;
  int error_line = 0;  // 0: the table is well formed
  std::string error;
  bool ok() const { return error_line == 0; }
};

template <std::size_t N>
int index_of(const std::string_view (&names)[N], std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (word(names[i]) == name) return static_cast<int>(i);
  return -1;
}

// The table's text, header first.
inline std::string format_table(const std::vector<Rule>& rules, std::string_view comment = {}) {
  std::ostringstream out;
  out << kMagic << ' ' << kVersion << '\n';
  std::istringstream lines{std::string(comment)};
  for (std::string line; std::getline(lines, line);) out << "# " << line << '\n';
  out << kColumns << '\n';
  for (const Rule& r : rules)
    out << word(kFuncNames[r.func]) << ' ' << r.min_bytes << ' ' << r.max_bytes << ' ' << r.nodes << ' ' << r.ranks_per_node
        << ' ' << word(kAlgoNames[r.algo]) << ' ' << word(kProtoNames[r.proto]) << ' ' << r.channels << '\n';
  return out.str();
}

namespace detail {

// A whole unsigned decimal number, no sign, no overflow.
inline std::optional<std::uint64_t> parse_count(const std::string& s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

inline std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  return fields;
}

// Why `f` (eight fields) is not a rule, or empty; fills `r`.
inline std::string parse_rule(const std::vector<std::string>& f, Rule& r) {
  if (f.size() != 8) return "expected 8 fields, found " + std::to_string(f.size());
  r.func = index_of(kFuncNames, f[0]);
  if (r.func < 0) return "unknown collective '" + f[0] + "'";
  const auto lo = parse_count(f[1]), hi = parse_count(f[2]), nodes = parse_count(f[3]), rpn = parse_count(f[4]),
             channels = parse_count(f[7]);
  if (!lo || !hi || !nodes || !rpn || !channels) return "sizes, nodes, ranks_per_node and channels must be whole numbers";
  if (*lo > *hi) return "min_bytes above max_bytes";
  if (*nodes < 1 || *rpn < 1 || *nodes > 1u << 20 || *rpn > 1u << 20) return "nodes and ranks_per_node must be 1 or more";
  if (*channels > CCF_NCCL_MAX_CHANNELS) return "channels above NCCL's MAXCHANNELS (64)";
  r.algo = index_of(kAlgoNames, f[5]);
  if (r.algo < 0) return "unknown algorithm '" + f[5] + "'";
  r.proto = index_of(kProtoNames, f[6]);
  if (r.proto < 0) return "unknown protocol '" + f[6] + "'";
  r.min_bytes = *lo;
  r.max_bytes = *hi;
  r.nodes = static_cast<int>(*nodes);
  r.ranks_per_node = static_cast<int>(*rpn);
  r.channels = static_cast<int>(*channels);
  return {};
}

inline bool overlaps(const Rule& a, const Rule& b) {
  return a.func == b.func && a.nodes == b.nodes && a.ranks_per_node == b.ranks_per_node && a.min_bytes <= b.max_bytes &&
         b.min_bytes <= a.max_bytes;
}

}  // namespace detail

// Every rule, or the first problem with its line: the header line must come first; rules of one
// collective and communicator shape must not overlap (a call would have two answers).
inline ParseResult parse_table(std::string_view text) {
  ParseResult result;
  std::istringstream in{std::string(text)};
  bool header = false;
  int number = 0;
  auto fail = [&](std::string why) {
    result.rules.clear();
    result.error_line = number;
    result.error = std::move(why);
    return result;
  };
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::vector<std::string> f = detail::fields_of(line);
    if (f.empty()) continue;
    if (!header) {
      if (f.size() != 2 || f[0] != kMagic) return fail("first line must be '" + std::string(kMagic) + " 1'");
      if (f[1] != std::to_string(kVersion)) return fail("table version " + f[1] + " is not 1 (rewrite it with this ccforge)");
      header = true;
      continue;
    }
    Rule r;
    if (std::string why = detail::parse_rule(f, r); !why.empty()) return fail(why);
    for (const Rule& other : result.rules)
      if (detail::overlaps(r, other)) return fail("band overlaps an earlier rule of the same collective and shape");
    result.rules.push_back(r);
  }
  if (!header) {
    number = number == 0 ? 1 : number;
    return fail("empty table: no '" + std::string(kMagic) + " 1' line");
  }
  return result;
}

// The rule for a call, or nullptr (then NCCL's own choice stands).
inline const Rule* match(const std::vector<Rule>& rules, int func, std::uint64_t bytes, int nodes, int ranks_per_node) {
  for (const Rule& r : rules)
    if (r.func == func && r.nodes == nodes && r.ranks_per_node == ranks_per_node && r.min_bytes <= bytes &&
        bytes <= r.max_bytes)
      return &r;
  return nullptr;
}

}  // namespace ccforge::tuner_conf
