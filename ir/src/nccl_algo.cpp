// NCCL's algorithm names, as NCCL_ALGO spells them in lower case.
#include "ccforge/ir/nccl_algo.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace ccforge::ir {
namespace {

constexpr const char* kNames[] = {"tree", "ring", "nvls", "nvlstree", "pat", "p2p", "allpairs"};  // NcclAlgo's order

}  // namespace

const char* to_string(NcclAlgo algo) {
  const auto i = static_cast<std::size_t>(algo);
  return i < std::size(kNames) ? kNames[i] : "ring";
}

std::optional<NcclAlgo> nccl_algo_from_string(std::string_view s) {
  const auto lower_equal = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    const std::string_view name = kNames[i];
    if (s.size() == name.size() && std::equal(s.begin(), s.end(), name.begin(), lower_equal)) return static_cast<NcclAlgo>(i);
  }
  return std::nullopt;
}

}  // namespace ccforge::ir
