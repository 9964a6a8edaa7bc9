// Names, buffer layouts and the size rule of one collective call.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "ccforge/executor/executor.hpp"
#include "plan.hpp"

namespace ccforge::executor {
namespace {

constexpr std::array<std::pair<RedOp, const char*>, 5> kOpNames{{
    {RedOp::Sum, "sum"}, {RedOp::Prod, "prod"}, {RedOp::Min, "min"}, {RedOp::Max, "max"}, {RedOp::Avg, "avg"}}};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

const char* to_string(RedOp op) {
  for (const auto& [o, name] : kOpNames) if (o == op) return name;
  return "?";
}

std::optional<RedOp> red_op_from_string(std::string_view s) {
  const std::string key = lower(s);
  for (const auto& [op, name] : kOpNames) if (key == name) return op;
  return std::nullopt;
}

std::string red_op_names() {
  std::string names;
  for (const auto& [op, name] : kOpNames) names += std::string(names.empty() ? "" : ", ") + name;
  return names;
}

bool applies_reduction(ir::Collective c) {
  return c == ir::Collective::AllReduce || c == ir::Collective::ReduceScatter || c == ir::Collective::Reduce;
}

bool receives_result(const CallSpec& call, int rank) {
  using enum ir::Collective;
  return (call.collective != Reduce && call.collective != Gather) || rank == call.root;
}

BufferLayout buffer_layout(const CallSpec& call, int nranks, int rank) {
  const std::size_t n = call.count;
  const std::size_t all = n * static_cast<std::size_t>(nranks);
  const std::size_t mine = n * static_cast<std::size_t>(rank);
  switch (call.collective) {
    case ir::Collective::AllGather:
    case ir::Collective::Gather:
      return {n, all, all, mine, 0};
    case ir::Collective::ReduceScatter:
    case ir::Collective::Scatter:
      return {all, n, all, 0, mine};
    case ir::Collective::AllToAll:
      return {all, all, all, 0, 0};
    default:
      return {n, n, n, 0, 0};
  }
}

std::optional<std::string> why_not_runnable(const ir::Algorithm& algo, const CallSpec& call) {
  if (algo.collective != call.collective) return "the algorithm implements a different collective";
  if (call.count == 0) return "count is 0";
  if (call.inplace ? !algo.inplace : !algo.outofplace)
    return call.inplace ? "the algorithm is not valid in place" : "the algorithm is not valid out of place";
  const std::size_t total = call.count * static_cast<std::size_t>(ir::size_multiplier(algo.collective, algo.ngpus));
  if (algo.nchunksperloop <= 0 || total % static_cast<std::size_t>(algo.nchunksperloop) != 0)
    return std::to_string(total) + " elements do not split into " + std::to_string(algo.nchunksperloop) + " chunks";
  return std::nullopt;
}

}  // namespace ccforge::executor
