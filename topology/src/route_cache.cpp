#include "route_cache.hpp"

#include <algorithm>

namespace ccforge::topo {

const Route& RouteCache::get(int src_rank, int dst_rank) const {
  const std::uint64_t key = static_cast<std::uint64_t>(src_rank) << 32 | static_cast<std::uint32_t>(dst_rank);
  if (const auto it = routes_.find(key); it != routes_.end()) return it->second;
  std::optional<Route> pxn = finder_.pxn_route(src_rank, dst_rank);
  const std::shared_ptr<const RouteTree> tree = pxn ? nullptr : tree_for(src_rank);
  Route route = pxn ? std::move(*pxn) : tree ? finder_.route(*tree, dst_rank) : finder_.route_to(src_rank, dst_rank);
  // Two threads may compute the same route at once; both results are equal and the first stored wins.
  return routes_.emplace(key, std::move(route)).first->second;
}

std::shared_ptr<const RouteTree> RouteCache::tree_for(int src_rank) const {
  {
    const std::lock_guard<std::mutex> lock(trees_mutex_);
    const auto it = std::find_if(recent_trees_.begin(), recent_trees_.end(),
                                 [&](const auto& t) { return t->src_rank == src_rank; });
    if (it != recent_trees_.end()) {
      recent_trees_.splice(recent_trees_.begin(), recent_trees_, it);
      return recent_trees_.front();
    }
    const auto misses = std::count(recent_misses_.begin(), recent_misses_.end(), src_rank);
    if (misses + 1 < kAsksBeforeTree) {
      recent_misses_.push_back(src_rank);
      if (recent_misses_.size() > kRecentMisses) recent_misses_.pop_front();
      return nullptr;
    }
    recent_misses_.erase(std::remove(recent_misses_.begin(), recent_misses_.end(), src_rank), recent_misses_.end());
  }
  auto fresh = std::make_shared<const RouteTree>(finder_.tree(src_rank));  // outside the lock: Dijkstra is the slow part
  const std::lock_guard<std::mutex> lock(trees_mutex_);
  recent_trees_.push_front(fresh);
  if (recent_trees_.size() > kRecentTrees) recent_trees_.pop_back();
  return fresh;
}

}  // namespace ccforge::topo
