// Small public helpers: element types and nccl-tests bandwidth formulas.
#include <array>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

// nccl-tests' -d names (src/common.cu test_typenames) and their sizes.
const std::array<DataType, 10> kDataTypes = {{{"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8},
                                              {"uint64", 8}, {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}}};

}  // namespace

std::optional<DataType> data_type_from_string(std::string_view name) {
  for (const DataType& t : kDataTypes) {
    if (t.name == name) return t;
  }
  return std::nullopt;
}

std::string data_type_names() {
  std::string out;
  for (const DataType& t : kDataTypes) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

double algbw_gbs(ByteCount bytes, SimTime time) {
  return time.ps > 0 ? static_cast<double>(bytes) / time.seconds() * 1e-9 : 0.0;
}

double busbw_factor(ir::Collective coll, int ngpus) {
  const double p = ngpus;
  switch (coll) {
    case ir::Collective::AllReduce: return 2.0 * (p - 1) / p;
    case ir::Collective::AllGather:
    case ir::Collective::ReduceScatter:
    case ir::Collective::AllToAll:
    case ir::Collective::AllToAllV:
    case ir::Collective::Gather:
    case ir::Collective::Scatter: return (p - 1) / p;
    default: return 1.0;
  }
}

}  // namespace ccforge::sim
