// Timestamped events ordered by (time, seq): the per-queue sequence number makes ties FIFO, so a run is
// reproducible bit for bit (ns-3 Scheduler::EventKey). Cancellation is lazy: the owner compares a
// generation stored in the payload and drops stale events when they pop.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "ccforge/common/units.hpp"

namespace ccforge::sim {

struct EventKey {
  SimTime time;
  std::uint64_t seq = 0;
  auto operator<=>(const EventKey&) const = default;
};

template <typename Payload>
class EventQueue {
 public:
  struct Event {
    EventKey key;
    Payload payload;
  };

  void push(SimTime time, Payload payload) { heap_.push(Event{EventKey{time, next_seq_++}, payload}); }
  bool empty() const { return heap_.empty(); }
  SimTime next_time() const { return heap_.top().key.time; }  // queue must not be empty
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return b.key < a.key; }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace ccforge::sim
