// Element storage and reduction arithmetic shared by the backends' host code: half and bfloat16 are
// 16-bit storage reduced in float and rounded back to nearest-even, as NCCL's device code does.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ccforge/executor/executor.hpp"

namespace ccforge::executor {

std::uint16_t float_to_half_bits(float value);
float half_bits_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16_bits(float value);
float bfloat16_bits_to_float(std::uint16_t bits);

// dst[i] = a[i] (op) b[i] for n elements of `type`; dst may alias a or b. Avg adds: the division by the
// rank count is divide_elements' at the end of the call.
void reduce_elements(DataType type, RedOp op, std::byte* dst, const std::byte* a, const std::byte* b, std::size_t n);

// p[i] /= divisor for n elements of `type`: integers truncate as C++ and CUDA divide, half and bfloat16
// divide in float and round back to nearest even.
void divide_elements(DataType type, std::byte* p, std::size_t n, int divisor);

}  // namespace ccforge::executor
