// Dense value-type ids that index arrays directly.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace ccforge {

template <typename Tag>
struct DenseId {
  std::uint32_t v = 0;
  constexpr auto operator<=>(const DenseId&) const = default;
};

using VertexId = DenseId<struct VertexTag>;
using LinkId = DenseId<struct LinkTag>;

}  // namespace ccforge

template <typename Tag>
struct std::hash<ccforge::DenseId<Tag>> {
  std::size_t operator()(ccforge::DenseId<Tag> id) const noexcept { return std::hash<std::uint32_t>{}(id.v); }
};
