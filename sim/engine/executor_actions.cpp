// The executor's handling of the controller's actions (policy/controller.hpp).
#include "engine/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace odcn::engine::detail {

void Executor::process(sched::Actions& act) {
  for (auto& a : act.take()) {
    if (stopped_) return;
    switch (a.kind) {
      case sched::Actions::Kind::configure:
        if (auto v = network_.violation ? network_.violation(a.config) : std::string(); !v.empty()) {
          fail(v);
          return;
        }
        circuits_.apply(a.config, a.text, woken_at_);
        break;
      case sched::Actions::Kind::configure_changes:
        if (auto v = network_.changes_violation(circuits_.current(), a.changes); !v.empty()) {
          fail(v);
          return;
        }
        circuits_.apply_changes(a.changes, a.text, woken_at_);
        break;
      case sched::Actions::Kind::release: {
        const auto& r = a.releases.at(0);
        start_task(jobs_.at(static_cast<std::size_t>(r.job)), r.task, r.routing, r.in_network);
        break;
      }
      case sched::Actions::Kind::release_together:
        start_batch(a.releases);
        break;
      case sched::Actions::Kind::skip:
        skip(a);
        break;
      case sched::Actions::Kind::wake_at:
        wakes_.insert(a.at_s);
        timer_wake_->release();
        break;
      case sched::Actions::Kind::admit: {
        JobState& j = jobs_.at(static_cast<std::size_t>(a.job));
        if (!j.arrived)
          throw std::logic_error(fmt::format("controller admitted job {} before it arrived", j.spec->id));
        admit(j);
        break;
      }
      case sched::Actions::Kind::stop:
        stop();
        break;
      case sched::Actions::Kind::stage:
        record_.stages.push_back(a.stage);
        break;
      case sched::Actions::Kind::event:
        record_.add_event(a.event);
        break;
      case sched::Actions::Kind::progress:
        progress_line(options_, a.text, a.done, a.total);
        break;
    }
  }
}

/// A ready task of iteration 0 the controller marks done at the start, without running it.
void Executor::skip(const sched::Actions::Action& a) {
  JobState& j = jobs_.at(static_cast<std::size_t>(a.job));
  const auto st = j.initialized ? j.status.at(static_cast<std::size_t>(a.task)) : Status::waiting;
  if (sg4::Engine::get_clock() > 0 || j.iteration > 0 || (st != Status::ready && st != Status::held))
    throw std::logic_error(fmt::format("a controller may skip only ready tasks of iteration 0, at the start "
                                       "(job {}, task {})", j.spec->id, a.task));
  if (st == Status::held) --j.held;
  if (const auto it = std::find(j.ungated.begin(), j.ungated.end(), a.task); it != j.ungated.end())
    j.ungated.erase(it);
  mark_done(j, a.task);
  j.open = j.warm = true;
  j.start_s = 0;
}

}  // namespace odcn::engine::detail
