// Pass 1: NCCL topology XML (<system version="1">) -> RawTopology, each record with its SourceLoc.
#pragma once

#include "raw_topology.hpp"
#include "xml_source.hpp"

#include <pugixml.hpp>

namespace ccforge::topo {

// Reads the <system> element `system` of `src`. Rejects malformed or unknown content with a DiagError;
// does not complete partial files or check cross references (see complete.hpp).
RawTopology read_nccl_system(const XmlSource& src, pugi::xml_node system);

}  // namespace ccforge::topo
