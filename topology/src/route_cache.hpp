// Routes computed on first ask and kept, pair by pair: memory follows the pairs a caller uses, not all
// pairs (16,384 GPUs have 268 M). Safe to use from many threads at once.
#pragma once

#include "routes.hpp"

#include <tbb/concurrent_unordered_map.h>

#include <cstddef>
#include <cstdint>
#include <deque>
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
  // The source's whole tree when it is kept, or when the source is asked often enough to pay for one
  // (then it is kept); null: compute this one route alone (RouteFinder::route_to).
  std::shared_ptr<const RouteTree> tree_for(int src_rank) const;

  // A simulation asks each source for a route or two (its ring's next GPU, its tree's parent), mostly
  // inside its node, which a search that stops at the destination settles in microseconds where a whole
  // tree costs milliseconds (about 40 at 16,384 GPUs). Walks of one source's many destinations (a row,
  // the loader's reachability check, `topo show`) get the tree after kAsksBeforeTree recent misses from it,
  // one walk per thread: the kRecentTrees most recent trees are kept, each 8 bytes per routing vertex
  // (about 1.2 MB at 16,384 GPUs). Routes across nodes that RouteFinder::pxn_route puts together need
  // neither and are not counted.
  static constexpr std::size_t kRecentTrees = 16;
  static constexpr int kAsksBeforeTree = 4;
  static constexpr std::size_t kRecentMisses = 256;

  // tbb::concurrent_unordered_map picks a bucket from the hash's low bits, which std::hash<uint64_t>
  // (the identity) leaves as the destination alone: every source's route to one GPU shared a bucket and
  // a lookup walked them all. MurmurHash3's 64-bit finalizer (fmix64) spreads every key bit over all.
  struct PairHash {
    std::size_t operator()(std::uint64_t key) const {
      key ^= key >> 33;
      key *= 0xff51afd7ed558ccdULL;
      key ^= key >> 33;
      key *= 0xc4ceb9fe1a85ec53ULL;
      key ^= key >> 33;
      return static_cast<std::size_t>(key);
    }
  };

  const RouteFinder& finder_;
  mutable tbb::concurrent_unordered_map<std::uint64_t, Route, PairHash> routes_;  // key: src << 32 | dst; nodes never move
  mutable std::mutex trees_mutex_;
  mutable std::list<std::shared_ptr<const RouteTree>> recent_trees_;  // most recently used first
  mutable std::deque<int> recent_misses_;                              // sources of the last misses without a tree
};

}  // namespace ccforge::topo
