// Small public helpers: nccl-tests' call sizes and bandwidth formulas.
#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {

ByteCount call_bytes(ByteCount size, DataType dtype, ir::Collective coll, int ngpus) {
  const ByteCount unit = static_cast<ByteCount>(size_of(dtype)) * static_cast<ByteCount>(ir::ranks_in_size(coll, ngpus));
  return size / unit * unit;
}

double algbw_gbs(ByteCount bytes, SimTime time) {
  return time.ps > 0 ? static_cast<double>(bytes) / time.seconds() * 1e-9 : 0.0;
}

}  // namespace ccforge::sim
