#include "reference.hpp"

#include <algorithm>

namespace ccforge::validate {
namespace {

using executor::CallSpec;
using executor::RedOp;

// Largest integer M such that every integer up to M is exact: half 2^11, bfloat16 2^8 (IEEE 754 /
// bfloat16 significand widths 11 and 8 bits), float 2^24, double 2^53; integers up to their maximum.
double exact_integer_limit(DataType t) {
  switch (t) {
    case DataType::Half: return 2048.0;
    case DataType::BFloat16: return 256.0;
    case DataType::Float: return 16777216.0;
    case DataType::Int8: return 127.0;
    case DataType::Uint8: return 255.0;
    default: return 9007199254740992.0;
  }
}

double combine(RedOp op, double a, double b) {
  switch (op) {
    case RedOp::Sum: case RedOp::Avg: return a + b;
    case RedOp::Prod: return a * b;
    case RedOp::Min: return std::min(a, b);
    case RedOp::Max: return std::max(a, b);
  }
  return a;
}

double reduced_over_ranks(const CallSpec& call, int nranks, std::size_t index) {
  double acc = input_value(call, nranks, 0, index);
  for (int q = 1; q < nranks; ++q) acc = combine(call.op, acc, input_value(call, nranks, q, index));
  return call.op == RedOp::Avg ? acc / nranks : acc;
}

double expected_output(const CallSpec& call, int nranks, int rank, std::size_t j) {
  const std::size_t c = call.count;
  const auto q = static_cast<int>(j / c);
  using enum ir::Collective;
  switch (call.collective) {
    case AllGather: case Gather: return input_value(call, nranks, q, j % c);
    case ReduceScatter: return reduced_over_ranks(call, nranks, static_cast<std::size_t>(rank) * c + j);
    case AllToAll: return input_value(call, nranks, q, static_cast<std::size_t>(rank) * c + j % c);
    case Broadcast: return input_value(call, nranks, call.root, j);
    case Scatter: return input_value(call, nranks, call.root, static_cast<std::size_t>(rank) * c + j);
    default: return reduced_over_ranks(call, nranks, j);  // allreduce, reduce
  }
}

}  // namespace

// Sums stay below the exact-integer limit with up to nranks addends; products are of 1, 2 and -1 (1,
// 2 and 1 for unsigned types), so they are powers of two, and a rank's factor repeats every third rank
// (37 = 1 mod 3): at most 2^ceil(nranks / 3); min/max take small integers (non-negative for unsigned);
// averages take multiples of the rank count, so that the sum divides exactly.
double input_value(const CallSpec& call, int nranks, int rank, std::size_t index) {
  const auto mix = static_cast<std::int64_t>(static_cast<std::size_t>(rank) * 37 + index * 11 + 7);
  const bool is_signed = !is_unsigned(call.dtype);
  switch (call.op) {
    case RedOp::Sum: {
      const auto bound = static_cast<std::int64_t>(std::clamp(exact_integer_limit(call.dtype) / nranks, 1.0, 100.0));
      return static_cast<double>(mix % bound);
    }
    case RedOp::Avg: {
      const auto bound = static_cast<std::int64_t>(std::clamp(exact_integer_limit(call.dtype) / nranks / nranks, 1.0, 100.0));
      return static_cast<double>(mix % bound * nranks);
    }
    case RedOp::Prod: {
      const double factors[] = {1.0, 2.0, is_signed ? -1.0 : 1.0};
      return factors[mix % 3];
    }
    default: return static_cast<double>(mix % 199 - (is_signed ? 99 : 0));
  }
}

std::vector<executor::RankBuffers> make_inputs(const CallSpec& call, int nranks) {
  const std::size_t elem = size_of(call.dtype);
  std::vector<executor::RankBuffers> buffers(static_cast<std::size_t>(nranks));
  for (int r = 0; r < nranks; ++r) {
    const executor::BufferLayout layout = executor::buffer_layout(call, nranks, r);
    auto& b = buffers[static_cast<std::size_t>(r)];
    b.recv.assign((call.inplace ? layout.inplace_elems : layout.recv_elems) * elem, std::byte{0});
    std::byte* input = b.recv.data() + layout.inplace_send_offset * elem;
    if (!call.inplace) {
      b.send.assign(layout.send_elems * elem, std::byte{0});
      input = b.send.data();
    }
    for (std::size_t i = 0; i < layout.send_elems; ++i) executor::store_element(call.dtype, input_value(call, nranks, r, i), input + i * elem);
  }
  return buffers;
}

std::int64_t count_wrong(const CallSpec& call, int nranks, const std::vector<executor::RankBuffers>& buffers) {
  const std::size_t elem = size_of(call.dtype);
  std::int64_t wrong = 0;
  std::vector<std::byte> expected(elem);
  for (int r = 0; r < nranks; ++r) {
    if (!executor::receives_result(call, r)) continue;
    const executor::BufferLayout layout = executor::buffer_layout(call, nranks, r);
    const std::byte* out = buffers[static_cast<std::size_t>(r)].recv.data() + (call.inplace ? layout.inplace_recv_offset * elem : 0);
    for (std::size_t j = 0; j < layout.recv_elems; ++j) {
      // Compare encodings: the expected value is exact, so any difference is an error.
      executor::store_element(call.dtype, expected_output(call, nranks, r, j), expected.data());
      wrong += !std::equal(expected.begin(), expected.end(), out + j * elem);
    }
  }
  return wrong;
}

}  // namespace ccforge::validate
