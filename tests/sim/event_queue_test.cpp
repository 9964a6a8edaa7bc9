#include "event_queue.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ccforge::sim
