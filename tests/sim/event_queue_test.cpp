#include "event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace ccforge::sim {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue<int> q;
  q.push(SimTime{30}, 1);
  q.push(SimTime{10}, 2);
  q.push(SimTime{30}, 3);  // same time as 1, pushed later: pops after it
  q.push(SimTime{10}, 4);
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  EXPECT_EQ(order, (std::vector<int>{2, 4, 1, 3}));
}

TEST(EventQueue, KeyedEventIsReplacedInPlace) {
  // Flow 7's finish is predicted at 50, then revised to 20, then to 40: only the last prediction pops,
  // and it ties with plain event 3 (time 40) after it, because the revision was made later.
  EventQueue<int> q;
  q.schedule(7, SimTime{50}, 70);
  q.push(SimTime{40}, 3);
  q.schedule(7, SimTime{20}, 71);
  q.push(SimTime{30}, 2);
  q.schedule(7, SimTime{40}, 72);
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  EXPECT_EQ(order, (std::vector<int>{2, 3, 72}));
}

TEST(EventQueue, KeyCanBeScheduledAgainAfterItPops) {
  EventQueue<int> q;
  q.schedule(1, SimTime{10}, 1);
  q.schedule(2, SimTime{5}, 2);
  EXPECT_EQ(q.pop().payload, 2);
  q.schedule(2, SimTime{8}, 3);  // a new event for key 2, not a replacement of the popped one
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  EXPECT_EQ(order, (std::vector<int>{3, 1}));
}

TEST(EventQueue, ManyRevisionsPopInKeyOrder) {
  // 100 keys, each revised 5 times to pseudo-random times; the pops must come out sorted by
  // (time, time of the last revision) with one event per key.
  EventQueue<int> q;
  std::vector<std::pair<std::int64_t, int>> expected(100);
  std::uint32_t x = 12345;
  int seq = 0;
  for (int round = 0; round < 5; ++round) {
    for (std::uint32_t k = 0; k < 100; ++k) {
      x = x * 1664525u + 1013904223u;
      const std::int64_t t = x % 1000;
      q.schedule(k, SimTime{t}, static_cast<int>(k));
      expected[k] = {t, seq++};
    }
  }
  std::vector<int> keys(100);
  for (int k = 0; k < 100; ++k) keys[k] = k;
  std::sort(keys.begin(), keys.end(), [&](int a, int b) { return expected[a] < expected[b]; });
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  EXPECT_EQ(order, keys);
}

}  // namespace
}  // namespace ccforge::sim
