// Links that no flow can tell apart: every path crosses them equally often, so they always carry the
// same flows, in the same order, at the same loads (a GPU's NVLink port and the NIC behind it, a pair of
// switch ports). Of such twins only the one of least capacity can bind first; FlowNetwork keeps the
// flow lists and loads of that one alone and leaves the others out of the max-min problem, which then
// has the same solution bit for bit (why: twin_links.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace ccforge::sim {

// A twin of capacity at least (1 + kTwinMargin) times its class's least never binds first.
inline constexpr double kTwinMargin = 1e-6;

// Per link, the twin that stands for it: the one of least capacity in its class, for those of equal
// capacity (the same constraint) and for those at least kTwinMargin larger; the link itself otherwise
// (no twin, or a capacity within the margin above the least). `capacity` per link in bytes/s.
std::vector<std::uint32_t> twin_standing_for(const std::vector<std::vector<std::uint32_t>>& paths,
                                             const std::vector<double>& capacity);

}  // namespace ccforge::sim
