// Inputs whose every reduction is exact in the element type, whatever order an algorithm reduces in,
// and the collective's definition evaluated on them: #wrong counts elements that differ at all.
#pragma once

#include <cstdint>
#include <vector>

#include "ccforge/executor/executor.hpp"

namespace ccforge::validate {

// Element `index` of rank `rank`'s send buffer.
double input_value(const executor::CallSpec& call, int nranks, int rank, std::size_t index);

// Buffers laid out by executor::buffer_layout, inputs filled in (in place: inside the recv buffer).
std::vector<executor::RankBuffers> make_inputs(const executor::CallSpec& call, int nranks);

// Output elements, over all ranks that receive a result, that differ from the definition.
std::int64_t count_wrong(const executor::CallSpec& call, int nranks, const std::vector<executor::RankBuffers>& buffers);

}  // namespace ccforge::validate
