// Nesting depth of a parsed XML document, measured without recursion. pugixml parses any depth, but
// readers that descend recursively (and the records they build) would overflow the stack on hostile
// input such as 30,000 nested <pci>, so each reader rejects documents deeper than its format allows.
// Include only from parts that link pugixml.
#pragma once

#include <pugixml.hpp>

namespace ccforge {

// The first element (in document order) nested deeper than `max_depth`, the root element being depth
// 1; a null node when there is none.
inline pugi::xml_node first_element_deeper_than(const pugi::xml_node& root, int max_depth) {
  pugi::xml_node node = root;
  int depth = 1;
  while (node) {
    if (node.type() == pugi::node_element && depth > max_depth) return node;
    if (node.first_child()) {
      node = node.first_child();
      ++depth;
      continue;
    }
    while (node != root && !node.next_sibling()) {
      node = node.parent();
      --depth;
    }
    if (node == root) return {};
    node = node.next_sibling();
  }
  return {};
}

}  // namespace ccforge
