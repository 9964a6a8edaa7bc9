// Timestamped events ordered by (time, seq): the per-queue sequence number makes ties FIFO, so a run is
// reproducible bit for bit (ns-3 Scheduler::EventKey). An event may carry a key (a flow id): scheduling
// a keyed event replaces the pending one with the same key in place, so a prediction that is revised
// many times (a flow's finish under changing rates) occupies one heap entry instead of leaving stale
// ones behind to be popped and dropped. The replacement takes a fresh seq, exactly as a new push would.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
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
  static constexpr std::uint32_t kNoKey = std::numeric_limits<std::uint32_t>::max();

  struct Event {
    EventKey key;
    Payload payload;
    std::uint32_t id = kNoKey;  // the event's key, kNoKey for a plain event
  };

  void push(SimTime time, Payload payload) {
    heap_.push_back(Event{EventKey{time, next_seq_++}, payload, kNoKey});
    sift_up(heap_.size() - 1);
  }
  // Schedules the event for `id`, replacing a pending one for the same id.
  void schedule(std::uint32_t id, SimTime time, Payload payload) {
    if (id >= position_.size()) position_.resize(id + 1, kAbsent);
    const Event e{EventKey{time, next_seq_++}, payload, id};
    const std::uint32_t at = position_[id];
    if (at == kAbsent) {
      heap_.push_back(e);
      position_[id] = static_cast<std::uint32_t>(heap_.size() - 1);
      sift_up(heap_.size() - 1);
      return;
    }
    const bool earlier = e.key < heap_[at].key;
    heap_[at] = e;
    if (earlier) {
      sift_up(at);
    } else {
      sift_down(at);
    }
  }
  bool empty() const { return heap_.empty(); }
  SimTime next_time() const { return heap_.front().key.time; }  // queue must not be empty
  Event pop() {
    Event top = heap_.front();
    if (top.id != kNoKey) position_[top.id] = kAbsent;
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      place(0);
      sift_down(0);
    }
    return top;
  }

 private:
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  void place(std::size_t at) {
    if (heap_[at].id != kNoKey) position_[heap_[at].id] = static_cast<std::uint32_t>(at);
  }
  void sift_up(std::size_t at) {
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!(heap_[at].key < heap_[parent].key)) break;
      std::swap(heap_[at], heap_[parent]);
      place(at);
      at = parent;
    }
    place(at);
  }
  void sift_down(std::size_t at) {
    for (;;) {
      const std::size_t left = 2 * at + 1;
      if (left >= heap_.size()) break;
      std::size_t least = left;
      if (left + 1 < heap_.size() && heap_[left + 1].key < heap_[left].key) least = left + 1;
      if (!(heap_[least].key < heap_[at].key)) break;
      std::swap(heap_[at], heap_[least]);
      place(at);
      at = least;
    }
    place(at);
  }

  std::vector<Event> heap_;              // binary min-heap on key
  // Per id (a task: millions in a large graph, so 4 bytes each): its event's index in heap_, or kAbsent.
  std::vector<std::uint32_t> position_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace ccforge::sim
