// The boundary of the link model's names: a table of "link." parameters (defaults with a profile's
// overrides) bound to LinkConstants, and a profile's values checked against their declared ranges.
#pragma once

#include <vector>

#include "ccforge/topology/link_constants.hpp"
#include "ccforge/topology/topology.hpp"

namespace ccforge::topo {

// Every declared constant of `table` (default_link_params() after apply_profile) into its field.
LinkConstants bind_link_constants(const ParamTable& table);

// A profile's "link." value outside its declared range is a DiagError naming the profile line.
void check_link_ranges(const std::vector<ProfileEntry>& profile);

}  // namespace ccforge::topo
