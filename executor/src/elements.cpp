#include "elements.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace ccforge::executor {

std::uint16_t float_to_half_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // inf stays inf; NaN stays a quiet NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x0200u : 0u));
  }
  // 65520 = halfway between the largest half (65504) and 65536: ties-to-even rounds it up to inf.
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {  // below 2^-14: a half subnormal, m * 2^-24, rounded to nearest even
    const float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;  // exact: power-of-two scaling
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: round the 23-bit mantissa to 10 bits (ties to even), then rebias the exponent 127 -> 15.
  const std::uint32_t rounded = magnitude + 0x0fffu + ((magnitude >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float half_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::uint16_t float_to_bfloat16_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  const std::uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

float bfloat16_bits_to_float(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

namespace {

// Integers wrap on overflow as on the GPU (two's complement), without C++ signed-overflow UB.
template <typename T>
T combine(RedOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case RedOp::Sum: case RedOp::Avg: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case RedOp::Prod: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case RedOp::Min: return std::min(a, b);
      case RedOp::Max: return std::max(a, b);
    }
  } else {
    switch (op) {
      case RedOp::Sum: case RedOp::Avg: return a + b;
      case RedOp::Prod: return a * b;
      case RedOp::Min: return b < a ? b : a;
      case RedOp::Max: return a < b ? b : a;
    }
  }
  return a;
}

template <typename T>
void reduce_native(RedOp op, std::byte* dst, const std::byte* a, const std::byte* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    const T r = combine(op, x, y);
    std::memcpy(dst + i * sizeof(T), &r, sizeof(T));
  }
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void reduce_16bit(RedOp op, std::byte* dst, const std::byte* a, const std::byte* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t x, y;
    std::memcpy(&x, a + i * 2, 2);
    std::memcpy(&y, b + i * 2, 2);
    const std::uint16_t r = FromFloat(combine(op, ToFloat(x), ToFloat(y)));
    std::memcpy(dst + i * 2, &r, 2);
  }
}

template <typename T>
void divide_native(std::byte* p, std::size_t n, int divisor) {
  for (std::size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, p + i * sizeof(T), sizeof(T));
    x = static_cast<T>(x / static_cast<T>(divisor));
    std::memcpy(p + i * sizeof(T), &x, sizeof(T));
  }
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void divide_16bit(std::byte* p, std::size_t n, int divisor) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t x;
    std::memcpy(&x, p + i * 2, 2);
    x = FromFloat(ToFloat(x) / static_cast<float>(divisor));
    std::memcpy(p + i * 2, &x, 2);
  }
}

}  // namespace

void divide_elements(DataType type, std::byte* p, std::size_t n, int divisor) {
  switch (type) {
    case DataType::Half: return divide_16bit<half_bits_to_float, float_to_half_bits>(p, n, divisor);
    case DataType::BFloat16: return divide_16bit<bfloat16_bits_to_float, float_to_bfloat16_bits>(p, n, divisor);
    case DataType::Float: return divide_native<float>(p, n, divisor);
    case DataType::Double: return divide_native<double>(p, n, divisor);
    case DataType::Int8: return divide_native<std::int8_t>(p, n, divisor);
    case DataType::Uint8: return divide_native<std::uint8_t>(p, n, divisor);
    case DataType::Int32: return divide_native<std::int32_t>(p, n, divisor);
    case DataType::Uint32: return divide_native<std::uint32_t>(p, n, divisor);
    case DataType::Int64: return divide_native<std::int64_t>(p, n, divisor);
    case DataType::Uint64: return divide_native<std::uint64_t>(p, n, divisor);
  }
}

void reduce_elements(DataType type, RedOp op, std::byte* dst, const std::byte* a, const std::byte* b, std::size_t n) {
  switch (type) {
    case DataType::Half: return reduce_16bit<half_bits_to_float, float_to_half_bits>(op, dst, a, b, n);
    case DataType::BFloat16: return reduce_16bit<bfloat16_bits_to_float, float_to_bfloat16_bits>(op, dst, a, b, n);
    case DataType::Float: return reduce_native<float>(op, dst, a, b, n);
    case DataType::Double: return reduce_native<double>(op, dst, a, b, n);
    case DataType::Int8: return reduce_native<std::int8_t>(op, dst, a, b, n);
    case DataType::Uint8: return reduce_native<std::uint8_t>(op, dst, a, b, n);
    case DataType::Int32: return reduce_native<std::int32_t>(op, dst, a, b, n);
    case DataType::Uint32: return reduce_native<std::uint32_t>(op, dst, a, b, n);
    case DataType::Int64: return reduce_native<std::int64_t>(op, dst, a, b, n);
    case DataType::Uint64: return reduce_native<std::uint64_t>(op, dst, a, b, n);
  }
}

namespace {

template <typename T>
void store_as(double value, std::byte* p) {
  const T v = static_cast<T>(value);
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
double load_as(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}

}  // namespace

void store_element(DataType t, double value, std::byte* p) {
  switch (t) {
    case DataType::Half: return store_as<std::uint16_t>(float_to_half_bits(static_cast<float>(value)), p);
    case DataType::BFloat16: return store_as<std::uint16_t>(float_to_bfloat16_bits(static_cast<float>(value)), p);
    case DataType::Float: return store_as<float>(value, p);
    case DataType::Double: return store_as<double>(value, p);
    case DataType::Int8: return store_as<std::int8_t>(value, p);
    case DataType::Uint8: return store_as<std::uint8_t>(value, p);
    case DataType::Int32: return store_as<std::int32_t>(value, p);
    case DataType::Uint32: return store_as<std::uint32_t>(value, p);
    case DataType::Int64: return store_as<std::int64_t>(value, p);
    case DataType::Uint64: return store_as<std::uint64_t>(value, p);
  }
}

double load_element(DataType t, const std::byte* p) {
  std::uint16_t bits;
  switch (t) {
    case DataType::Half: std::memcpy(&bits, p, 2); return half_bits_to_float(bits);
    case DataType::BFloat16: std::memcpy(&bits, p, 2); return bfloat16_bits_to_float(bits);
    case DataType::Float: return load_as<float>(p);
    case DataType::Double: return load_as<double>(p);
    case DataType::Int8: return load_as<std::int8_t>(p);
    case DataType::Uint8: return load_as<std::uint8_t>(p);
    case DataType::Int32: return load_as<std::int32_t>(p);
    case DataType::Uint32: return load_as<std::uint32_t>(p);
    case DataType::Int64: return load_as<std::int64_t>(p);
    case DataType::Uint64: return load_as<std::uint64_t>(p);
  }
  return 0.0;
}

}  // namespace ccforge::executor
