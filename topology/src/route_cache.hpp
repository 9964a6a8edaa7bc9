// Routes computed on first ask and kept, pair by pair: memory follows the pairs a caller uses, not all
// pairs (16,384 GPUs have 268 M). Safe to use from many threads at once.
#pragma once

#include "routes.hpp"

#include <tbb/concurrent_unordered_map.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

namespace ccforge::topo {

class RouteCache {
 public:
  explicit RouteCache(const RouteFinder& finder) : finder_(finder) {}

  // The route, computed on first ask; the reference stays valid as long as the cache.
  const Route& get(int src_rank, int dst_rank) const;
  std::size_t size() const { return routes_.size(); }

 private:
  std::shared_ptr<const RouteTree> tree(int src_rank) const;

  // Callers mostly walk one source's destinations at a time (a row, a ring's next hops across channels),
  // one walk per thread: a few recent trees save a Dijkstra per route. Each holds 8 bytes per routing
  // vertex (about 1.2 MB at 16,384 GPUs).
  static constexpr std::size_t kRecentTrees = 16;

  const RouteFinder& finder_;
  mutable tbb::concurrent_unordered_map<std::uint64_t, Route> routes_;  // key: src << 32 | dst; nodes never move
  mutable std::mutex trees_mutex_;
  mutable std::list<std::shared_ptr<const RouteTree>> recent_trees_;  // most recently used first
};

}  // namespace ccforge::topo
