#include "trace/writers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace odcn::trace {

std::string num(double v) { return fmt::format("{}", v); }

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {

template <class Json>
std::string dump(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

void write_iterations_csv(FileWriter out, const RunRecord& run) {
  out << "job,job_name,iteration,warm,start_s,end_s,duration_s,compute_s,communication_s,reconfiguration_stall_s,"
         "waiting_s,hidden_communication_s,circuit_bytes,tor_bytes\n";
  for (const auto& r : run.iterations)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.job,
                       run.thread_names.at(static_cast<std::size_t>(r.job)), r.iteration, r.warm ? 1 : 0,
                       num(r.start_s), num(r.end_s), num(r.end_s - r.start_s), num(r.compute_s),
                       num(r.exposed_communication_s()), num(r.exposed_stall_s()), num(r.wait_s),
                       num(r.hidden_communication_s()),
                       num(r.circuit_bytes), num(r.tor_bytes));
  out.close();
}

void write_stages_csv(FileWriter out, const RunRecord& run) {
  out << "round,stage,k,t,start_s,end_s,duration_s,predicted_s,comm_s,compute_s,bound,circuits_changed,reconfig_s,"
         "pod_group,bottleneck,comm_lower_bound_s\n";
  for (const auto& r : run.stages)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.round, r.stage, r.k, r.t, num(r.start_s),
                       num(r.end_s), num(r.end_s - r.start_s), num(r.predicted_s), num(r.comm_s), num(r.compute_s),
                       r.bound, r.circuits_changed, num(r.reconfig_s),
                       r.pod_group >= 0 ? std::to_string(r.pod_group) : "", r.bottleneck,
                       num(r.comm_lower_bound_s));
  out.close();
}

void write_circuits_csv(FileWriter out, const RunRecord& run) {
  out << "time_s,oxc,pod_a,pod_b,old_circuits,new_circuits,reason\n";
  for (const auto& r : run.circuits)
    out << fmt::format("{},{},{},{},{},{},{}\n", num(r.time_s), r.oxc, r.pod_a, r.pod_b, r.old_circuits,
                       r.new_circuits, r.reason);
  out.close();
}

ChromeTraceWriter::ChromeTraceWriter(FileWriter out, const std::vector<std::string>& thread_names)
    : out_(std::move(out)), thread_names_(thread_names), groups_{"jobs"} {
  out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
}

void ChromeTraceWriter::set_job_groups(std::vector<std::string> group_of_job) {
  groups_.clear();
  group_of_job_.clear();
  for (const auto& name : group_of_job) {
    const auto it = std::find(groups_.begin(), groups_.end(), name);
    group_of_job_.push_back(static_cast<int>(it - groups_.begin()));
    if (it == groups_.end()) groups_.push_back(name);
  }
  const auto it = std::find(groups_.begin(), groups_.end(), "jobs");
  default_group_ = static_cast<int>(it - groups_.begin());
  if (it == groups_.end()) groups_.emplace_back("jobs");
}

int ChromeTraceWriter::first_pid() const {
  return static_cast<int>(std::max(thread_names_.size(), group_of_job_.size())) + 1;
}

int ChromeTraceWriter::pid_of(const TraceEvent& e) const {
  const int groups = static_cast<int>(groups_.size());
  switch (e.track) {
    case TraceEvent::Track::job: {
      const auto j = static_cast<std::size_t>(std::max(0, e.id));
      return first_pid() + (j < group_of_job_.size() ? group_of_job_[j] : default_group_);
    }
    case TraceEvent::Track::scheduler:
      return first_pid() + groups;
    case TraceEvent::Track::fabric:
      break;
  }
  return first_pid() + groups + 1 + std::max(0, e.id);
}

void ChromeTraceWriter::item(const std::string& json) {
  if (!first_) out_ << ",";
  first_ = false;
  out_ << json;
}

void ChromeTraceWriter::announce_process(const TraceEvent& e, int pid) {
  const auto slot = static_cast<std::size_t>(pid - first_pid());
  if (slot >= processes_.size()) processes_.resize(slot + 1);
  Process& p = processes_[slot];
  if (p.named) return;
  p.named = true;
  const int groups = static_cast<int>(groups_.size());
  const auto sw = static_cast<std::size_t>(std::max(0, e.id));
  std::string name;
  int sort = 0;
  switch (e.track) {
    case TraceEvent::Track::job:
      sort = pid - first_pid();
      name = groups_[static_cast<std::size_t>(sort)];
      break;
    case TraceEvent::Track::fabric:
      sort = groups + static_cast<int>(sw);
      name = sw < switch_names_.size() && !switch_names_[sw].empty() ? switch_names_[sw]
                                                                     : fmt::format("switch {}", sw);
      break;
    case TraceEvent::Track::scheduler:
      sort = groups + switches_;
      name = scheduler_name_;
      break;
  }
  item(fmt::format("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":{}}}}}", pid,
                   json_string(name)));
  item(fmt::format("{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"sort_index\":{}}}}}",
                   pid, sort));
}

void ChromeTraceWriter::announce_thread(const TraceEvent& e, int pid, int tid) {
  std::string thread;
  if (e.track == TraceEvent::Track::job) {
    const auto j = static_cast<std::size_t>(tid - 1);
    if (j >= job_named_.size()) job_named_.resize(j + 1, 0);
    if (job_named_[j]) return;
    job_named_[j] = 1;
    thread = j < thread_names_.size() ? thread_names_[j] : fmt::format("job {}", j);
  } else {
    Process& p = processes_[static_cast<std::size_t>(pid - first_pid())];
    if (p.main_named) return;
    p.main_named = true;
    thread = e.track == TraceEvent::Track::fabric ? "circuit set-up" : "stages";
  }
  name_thread(pid, tid, thread);
}

void ChromeTraceWriter::name_thread(int pid, int tid, const std::string& name) {
  item(fmt::format("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}", pid,
                   tid, json_string(name)));
}

ChromeTraceWriter::RankThreads& ChromeTraceWriter::rank_threads(int job, int rank) {
  const auto j = static_cast<std::size_t>(std::max(0, job));
  if (j >= ranks_.size()) ranks_.resize(j + 1);
  auto& of_job = ranks_[j];
  const auto r = static_cast<std::size_t>(std::max(0, rank));
  if (r >= of_job.size()) of_job.resize(r + 1);
  return of_job[r];
}

int ChromeTraceWriter::rank_lane(const TraceEvent& e, int pid) {
  RankThreads& threads = rank_threads(e.id, e.rank);
  const int kind = e.category == "compute" ? 0 : 1;
  auto& lanes = threads.lanes[kind];
  // A lane takes a slice that starts once its last slice has ended (to within a nanosecond: a slice's end is
  // its start plus its duration, which may differ from the next slice's start by a rounding).
  constexpr Seconds kTolerance = 1e-9;
  const Seconds end = e.start_s + std::max(0.0, e.duration_s);
  for (auto& lane : lanes)
    if (lane.end_s <= e.start_s + kTolerance) {
      lane.end_s = std::max(lane.end_s, end);
      return lane.tid;
    }
  // Rank threads come after every pid: the engine names every switch before the first job slice.
  if (next_rank_tid_ == 0) next_rank_tid_ = first_pid() + static_cast<int>(groups_.size()) + 1 + switches_;
  const int tid = next_rank_tid_++;
  const int lane = static_cast<int>(lanes.size());
  lanes.push_back({tid, end});
  const std::string who = threads.name.empty() ? fmt::format("rank {}", e.rank) : threads.name;
  name_thread(pid, tid, fmt::format("{} · {}{}", who, kind == 0 ? "compute" : "comm",
                                    lane == 0 ? std::string() : fmt::format(" {}", lane + 1)));
  const int sort = (std::max(0, e.rank) * 2 + kind) * 64 + std::min(lane, 63);
  item(fmt::format("{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                   pid, tid, sort));
  return tid;
}

void ChromeTraceWriter::event(const TraceEvent& e) {
  if (e.track == TraceEvent::Track::fabric) switches_ = std::max(switches_, std::max(0, e.id) + 1);
  if (e.phase == TraceEvent::Phase::label) {  // a name, written with the first event of its track
    const auto id = static_cast<std::size_t>(std::max(0, e.id));
    switch (e.track) {
      case TraceEvent::Track::job:
        if (e.rank >= 0) {
          rank_threads(e.id, e.rank).name = e.name;
        } else {
          if (id >= thread_names_.size()) thread_names_.resize(id + 1);
          thread_names_[id] = e.name;
        }
        break;
      case TraceEvent::Track::fabric:
        if (id >= switch_names_.size()) switch_names_.resize(id + 1);
        switch_names_[id] = e.name;
        break;
      case TraceEvent::Track::scheduler:
        scheduler_name_ = e.name;
        break;
    }
    return;
  }
  const int pid = pid_of(e);
  const bool complete = e.phase == TraceEvent::Phase::complete;
  announce_process(e, pid);
  int tid = e.track == TraceEvent::Track::job ? std::max(0, e.id) + 1 : pid;
  if (complete && e.track == TraceEvent::Track::job && e.rank >= 0)
    tid = rank_lane(e, pid);
  else if (complete)  // instants and counters belong to the process
    announce_thread(e, pid, tid);
  std::string text = fmt::format("{{\"name\":{},\"cat\":{},\"ph\":\"{}\"", json_string(e.name),
                                 json_string(e.category), static_cast<char>(e.phase));
  if (e.phase == TraceEvent::Phase::instant) text += ",\"s\":\"p\"";
  text += fmt::format(",\"pid\":{}", pid);
  if (complete) text += fmt::format(",\"tid\":{}", tid);
  text += ",\"ts\":";
  text += num(e.start_s * 1e6);
  if (complete) {
    text += ",\"dur\":";
    text += num(e.duration_s * 1e6);
  }
  if (!e.args.empty()) {
    text += ",\"args\":{";
    text += e.args;
    text += "}";
  }
  text += "}";
  item(text);
}

void ChromeTraceWriter::close() {
  out_ << "]}\n";
  out_.close();
}

void write_chrome_trace(FileWriter out, const RunRecord& run) {
  ChromeTraceWriter w(std::move(out), run.thread_names);
  for (const auto& e : run.events) w.event(e);
  w.close();
}

void write_json(FileWriter out, const nlohmann::json& value) {
  out << dump(value, 2) << "\n";
  out.close();
}

}  // namespace odcn::trace
