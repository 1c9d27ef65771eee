#pragma once
// Internal to sim/engine: how actors hand work to each other.
#include <simgrid/s4u.hpp>

#include <deque>
#include <utility>

namespace odcn::engine {

/// A queue read by one actor. put() never blocks and takes no simulated time; take() blocks the reading actor
/// until an item is there. Actors share one address space, so no mailbox (and no network route) is needed.
template <class T>
class Inbox {
 public:
  void put(T item) {
    items_.push_back(std::move(item));
    ready_->release();
  }
  T take() {
    ready_->acquire();
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

 private:
  std::deque<T> items_;
  simgrid::s4u::SemaphorePtr ready_ = simgrid::s4u::Semaphore::create(0);
};

}  // namespace odcn::engine
