// Generator families, one source file each; registry.cpp lists them in one table.
#pragma once

#include <vector>

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// Common preconditions: rank count, a collective the generator lists, positive parameters.
Support check_common(const GenRequest& req, const std::vector<ir::Collective>& collectives);
// The ring order for channel j: req.rings[j] when given, else 0..p-1.
std::vector<int> ring_order(const GenRequest& req, int j);
Support check_rings(const GenRequest& req);

Support ring_supports(const GenRequest& req);
ir::Algorithm ring_generate(const GenRequest& req);
Support chain_supports(const GenRequest& req);
ir::Algorithm chain_generate(const GenRequest& req);

Support direct_supports(const GenRequest& req);
ir::Algorithm direct_generate(const GenRequest& req);
Support twoshot_supports(const GenRequest& req);
ir::Algorithm twoshot_generate(const GenRequest& req);

Support rd_supports(const GenRequest& req);
ir::Algorithm rd_generate(const GenRequest& req);
Support rhd_supports(const GenRequest& req);
ir::Algorithm rhd_generate(const GenRequest& req);

Support bruck_supports(const GenRequest& req);
ir::Algorithm bruck_generate(const GenRequest& req);

Support dbtree_supports(const GenRequest& req);
ir::Algorithm dbtree_generate(const GenRequest& req);
Support bintree_supports(const GenRequest& req);
ir::Algorithm bintree_generate(const GenRequest& req);

Support scatter_ag_supports(const GenRequest& req);
ir::Algorithm scatter_ag_generate(const GenRequest& req);

Support hier_supports(const GenRequest& req);
ir::Algorithm hier_generate(const GenRequest& req);

Support treepack_supports(const GenRequest& req);
ir::Algorithm treepack_generate(const GenRequest& req);

}  // namespace ccforge::search
