#include "connection.hpp"

#include <algorithm>
#include <utility>

namespace ccforge::executor::host {

void Connection::push(std::vector<std::byte> data) {
  // A transfer larger than the whole buffer would never fit; it takes all slots instead.
  const int need = std::min(per_transfer_, capacity_);
  std::unique_lock lock(mutex_);
  while (used_slots_ + need > capacity_) {
    control_.throw_if_aborted();
    changed_.wait_for(lock, RunControl::kPollInterval);
  }
  used_slots_ += need;
  queue_.push_back(std::move(data));
  changed_.notify_all();
}

std::vector<std::byte> Connection::pop() {
  std::unique_lock lock(mutex_);
  while (queue_.empty()) {
    control_.throw_if_aborted();
    changed_.wait_for(lock, RunControl::kPollInterval);
  }
  std::vector<std::byte> data = std::move(queue_.front());
  queue_.pop_front();
  used_slots_ -= std::min(per_transfer_, capacity_);
  changed_.notify_all();
  return data;
}

bool Connection::full() {
  std::lock_guard lock(mutex_);
  return used_slots_ + std::min(per_transfer_, capacity_) > capacity_;
}

bool Connection::empty() {
  std::lock_guard lock(mutex_);
  return queue_.empty();
}

void TbFlags::publish(std::size_t tb, std::uint64_t value) {
  std::lock_guard lock(mutex_);
  values_[tb] = std::max(values_[tb], value);
  changed_.notify_all();
}

void TbFlags::wait_at_least(std::size_t tb, std::uint64_t value) {
  std::unique_lock lock(mutex_);
  while (values_[tb] < value) {
    control_.throw_if_aborted();
    changed_.wait_for(lock, RunControl::kPollInterval);
  }
}

bool TbFlags::reached(std::size_t tb, std::uint64_t value) {
  std::lock_guard lock(mutex_);
  return values_[tb] >= value;
}

}  // namespace ccforge::executor::host
