// The nccl-tests size flags -b MIN -e MAX -f FACTOR, shared by the verbs that sweep sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ccforge/common/diag.hpp"
#include "ccforge/common/units.hpp"

namespace ccforge::cli {

inline std::vector<ByteCount> sizes_from_flags(const std::string& begin, const std::string& end, int factor) {
  const auto b = parse_size(begin), e = parse_size(end);
  if (!b || !e || *b == 0) fail_at("-b/-e", 0, "sizes must look like 1K, 64M, 1G and be > 0");
  if (*b > *e) fail_at("-b/-e", 0, "-b must not exceed -e");
  if (factor < 2) fail_at("-f", 0, "the size factor must be >= 2");
  return size_sweep(*b, *e, static_cast<std::uint64_t>(factor));
}

}  // namespace ccforge::cli
