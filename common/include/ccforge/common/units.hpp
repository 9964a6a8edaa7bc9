// Units as types: simulated time is an integer count of picoseconds, sizes are bytes, bandwidth is
// bytes per second. Only transfer_time() converts between them.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccforge {

using ByteCount = std::uint64_t;

// int64 picoseconds: range ~106 days, resolution fine enough that summing millions of NVLink steps
// accumulates no rounding drift.
struct SimTime {
  std::int64_t ps = 0;

  static constexpr SimTime from_us(double us) { return SimTime{static_cast<std::int64_t>(std::llround(us * 1e6))}; }
  static constexpr SimTime from_ns(double ns) { return SimTime{static_cast<std::int64_t>(std::llround(ns * 1e3))}; }
  static constexpr SimTime max() { return SimTime{std::numeric_limits<std::int64_t>::max()}; }
  constexpr double us() const { return static_cast<double>(ps) * 1e-6; }
  constexpr double seconds() const { return static_cast<double>(ps) * 1e-12; }

  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const { return SimTime{ps + o.ps}; }
  constexpr SimTime operator-(SimTime o) const { return SimTime{ps - o.ps}; }
  constexpr SimTime& operator+=(SimTime o) { ps += o.ps; return *this; }
  constexpr SimTime operator*(std::int64_t k) const { return SimTime{ps * k}; }
};

struct Bandwidth {
  double bytes_per_s = 0.0;

  // "GB/s" as NCCL and nccl-tests use it: 10^9 bytes per second.
  static constexpr Bandwidth GBps(double gb) { return Bandwidth{gb * 1e9}; }
  // Network line rates are quoted in Gb/s (10^9 bits per second).
  static constexpr Bandwidth Gbps(double gbit) { return Bandwidth{gbit * 1e9 / 8.0}; }
  constexpr double gbps() const { return bytes_per_s * 1e-9; }

  constexpr auto operator<=>(const Bandwidth&) const = default;
  constexpr Bandwidth operator*(double k) const { return Bandwidth{bytes_per_s * k}; }
};

// Time to push `bytes` through `bw`, rounded up to whole picoseconds so that no transfer is free.
constexpr SimTime transfer_time(double bytes, Bandwidth bw) {
  if (bytes <= 0.0) return SimTime{0};
  return SimTime{static_cast<std::int64_t>(std::ceil(bytes / bw.bytes_per_s * 1e12))};
}

// Parses nccl-tests style sizes: "1024", "1K", "64M", "1G" (K/M/G are powers of two, optional "B").
inline std::optional<ByteCount> parse_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.back() == 'B' || text.back() == 'b') text.remove_suffix(1);
  ByteCount multiplier = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': multiplier = ByteCount{1} << 10; break;
      case 'M': case 'm': multiplier = ByteCount{1} << 20; break;
      case 'G': case 'g': multiplier = ByteCount{1} << 30; break;
      case 'T': case 't': multiplier = ByteCount{1} << 40; break;
      default: break;
    }
    if (multiplier != 1) text.remove_suffix(1);
  }
  if (text.empty()) return std::nullopt;
  ByteCount value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (std::numeric_limits<ByteCount>::max() - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<ByteCount>(c - '0');
  }
  if (value > std::numeric_limits<ByteCount>::max() / multiplier) return std::nullopt;
  return value * multiplier;
}

// The nccl-tests size sweep -b MIN -e MAX -f FACTOR: MIN, MIN*FACTOR, ... up to MAX inclusive.
// Empty when the sweep is ill-formed (MIN 0, MIN > MAX or FACTOR < 2), so callers can report it.
inline std::vector<ByteCount> size_sweep(ByteCount min_bytes, ByteCount max_bytes, std::uint64_t factor) {
  std::vector<ByteCount> sizes;
  if (min_bytes == 0 || min_bytes > max_bytes || factor < 2) return sizes;
  for (ByteCount s = min_bytes; s <= max_bytes; s *= factor) {
    sizes.push_back(s);
    if (s > max_bytes / factor) break;  // the next step would overflow or pass MAX
  }
  return sizes;
}

// nccl-tests' sweep with -i STEP (its -f left at 1): MIN, MIN+STEP, ... up to MAX inclusive. Empty when
// ill-formed (MIN 0, MIN > MAX or STEP 0).
inline std::vector<ByteCount> linear_size_sweep(ByteCount min_bytes, ByteCount max_bytes, ByteCount step) {
  std::vector<ByteCount> sizes;
  if (min_bytes == 0 || min_bytes > max_bytes || step == 0) return sizes;
  for (ByteCount s = min_bytes; s <= max_bytes; s += step) {
    sizes.push_back(s);
    if (s > max_bytes - step) break;  // the next step would overflow or pass MAX
  }
  return sizes;
}

// "1K", "64M", "1G" when exact, plain bytes otherwise.
inline std::string format_size(ByteCount bytes) {
  constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (unit < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kSuffix[unit];
}

}  // namespace ccforge
