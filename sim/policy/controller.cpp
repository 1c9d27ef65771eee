#include "policy/controller.hpp"

#include <utility>

namespace odcn::sched {

void Actions::configure(net::CircuitConfig config, std::string reason) {
  Action a;
  a.kind = Kind::configure;
  a.config = std::move(config);
  a.text = std::move(reason);
  list_.push_back(std::move(a));
}

void Actions::configure_changes(std::vector<std::pair<int, int>> changes, std::string reason) {
  Action a;
  a.kind = Kind::configure_changes;
  a.changes = std::move(changes);
  a.text = std::move(reason);
  list_.push_back(std::move(a));
}

void Actions::release(Release r) {
  Action a;
  a.kind = Kind::release;
  a.releases.push_back(r);
  list_.push_back(std::move(a));
}

void Actions::release_together(std::vector<Release> batch) {
  Action a;
  a.kind = Kind::release_together;
  a.releases = std::move(batch);
  list_.push_back(std::move(a));
}

void Actions::skip(int job, int task) {
  Action a;
  a.kind = Kind::skip;
  a.job = job;
  a.task = task;
  list_.push_back(std::move(a));
}

void Actions::wake_at(Seconds t) {
  Action a;
  a.kind = Kind::wake_at;
  a.at_s = t;
  list_.push_back(std::move(a));
}

void Actions::admit(int job) {
  Action a;
  a.kind = Kind::admit;
  a.job = job;
  list_.push_back(std::move(a));
}

void Actions::stop() {
  Action a;
  a.kind = Kind::stop;
  list_.push_back(std::move(a));
}

void Actions::stage_row(trace::StageRow row) {
  Action a;
  a.kind = Kind::stage;
  a.stage = std::move(row);
  list_.push_back(std::move(a));
}

void Actions::event(trace::TraceEvent e) {
  Action a;
  a.kind = Kind::event;
  a.event = std::move(e);
  list_.push_back(std::move(a));
}

void Actions::progress(std::string what, int done, int total) {
  Action a;
  a.kind = Kind::progress;
  a.text = std::move(what);
  a.done = done;
  a.total = total;
  list_.push_back(std::move(a));
}

}  // namespace odcn::sched
