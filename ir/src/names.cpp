// Spellings of enums exactly as the executor's parser reads them (formats.md §1.2, §1.3).
#include "ccforge/ir/ir.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "op_traits.hpp"

namespace ccforge::ir {
namespace {

constexpr std::array<std::pair<Collective, const char*>, 11> kCollectives{{
    {Collective::AllReduce, "allreduce"},
    {Collective::AllGather, "allgather"},
    {Collective::ReduceScatter, "reducescatter"},
    {Collective::AllToAll, "alltoall"},
    {Collective::Broadcast, "broadcast"},
    {Collective::Reduce, "reduce"},
    {Collective::Gather, "gather"},
    {Collective::Scatter, "scatter"},
    {Collective::Send, "send"},
    {Collective::Recv, "recv"},
    {Collective::AllToAllV, "alltoallv"},
}};

constexpr std::array<std::pair<Protocol, const char*>, 3> kProtocols{{
    {Protocol::Simple, "Simple"}, {Protocol::LL, "LL"}, {Protocol::LL128, "LL128"}}};

constexpr std::array<std::pair<OpType, const char*>, 9> kOps{{
    {OpType::Send, "s"},
    {OpType::Recv, "r"},
    {OpType::RecvCopySend, "rcs"},
    {OpType::RecvReduceSend, "rrs"},
    {OpType::RecvReduceCopy, "rrc"},
    {OpType::RecvReduceCopySend, "rrcs"},
    {OpType::Copy, "cpy"},
    {OpType::Reduce, "re"},
    {OpType::Nop, "nop"},
}};

template <typename Table, typename Key>
const char* lookup(const Table& table, Key key) {
  for (const auto& [k, name] : table)
    if (k == key) return name;
  return "?";
}

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

const char* to_string(Collective c) { return lookup(kCollectives, c); }
const char* to_string(Protocol p) { return lookup(kProtocols, p); }
const char* to_string(OpType t) { return lookup(kOps, t); }

char to_char(BufferKind b) {
  switch (b) {
    case BufferKind::Input: return 'i';
    case BufferKind::Output: return 'o';
    case BufferKind::Scratch: return 's';
  }
  return '?';
}

std::optional<Collective> collective_from_string(std::string_view s) {
  for (const auto& [c, name] : kCollectives)
    if (s == name) return c;
  return std::nullopt;
}

std::optional<Protocol> protocol_from_string(std::string_view s) {
  for (const auto& [p, name] : kProtocols)
    if (iequals(s, name)) return p;
  return std::nullopt;
}

double bus_bandwidth_factor(Collective c, int ngpus) {
  const double p = ngpus;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (p - 1) / p;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll:
    case Collective::AllToAllV:
    case Collective::Gather:
    case Collective::Scatter: return (p - 1) / p;
    default: return 1.0;  // broadcast, reduce, send/recv
  }
}

}  // namespace ccforge::ir
