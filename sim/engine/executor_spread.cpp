// The executor's activities spread over actors: each actor creates and waits for at most kPerActor of them
// (docs/model.md, "SimGrid behaviours that shaped the engine").
#include "engine/executor.hpp"

#include <algorithm>

namespace odcn::engine::detail {

namespace {

/// One share's activities: made, then waited for, by the calling actor.
void make_and_wait(SimPlatform& platform, std::vector<sg4::ActivityPtr>& acts, std::size_t from, std::size_t to,
                   const std::function<sg4::ActivityPtr(std::size_t)>& make) {
  for (std::size_t i = from; i < to; ++i) acts[i] = make(i);
  for (std::size_t i = from; i < to; ++i) {
    acts[i]->wait();
    platform.waited(acts[i]);
  }
}

}  // namespace

void Executor::run_spread(std::vector<sg4::ActivityPtr>& acts,
                          const std::function<sg4::ActivityPtr(std::size_t)>& make) {
  const std::size_t n = acts.size();
  if (n <= kPerActor || platform_.direct_room(n)) {  // (direct transfers sit in no actor's list)
    make_and_wait(platform_, acts, 0, n, make);
    return;
  }
  // The other shares run in waiters, which use `make` (it may refer to the caller's locals) and `acts`: this actor
  // returns only when every share it handed out has ended, even after a failure. `left` counts this actor's own
  // share too until it is done, so that a share ending while others are still being handed out cannot signal the
  // end early.
  struct Shares {
    std::size_t left = 1;
    sg4::SemaphorePtr all_ended = sg4::Semaphore::create(0);
  };
  auto shares = std::make_shared<Shares>();
  auto* out = &acts;
  const auto* made = &make;
  for (std::size_t from = kPerActor; from < n; from += kPerActor) {
    const std::size_t to = std::min(n, from + kPerActor);
    ++shares->left;
    const bool handed = in_waiter([this, out, made, shares, from, to] {
      make_and_wait(platform_, *out, from, to, *made);
      if (--shares->left == 0) shares->all_ended->release();
    });
    if (!handed) {
      --shares->left;
      break;
    }
  }
  if (!failed()) make_and_wait(platform_, acts, 0, kPerActor, make);
  if (--shares->left > 0) shares->all_ended->acquire();
}

}  // namespace odcn::engine::detail
