#include "trace/writers.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace odcn::trace {

std::string num(double v) { return fmt::format("{}", v); }

namespace {

std::ofstream open(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path);
  return out;
}

}  // namespace

void write_iterations_csv(const std::string& path, const RunRecord& run) {
  auto out = open(path);
  out << "job,job_name,iteration,warm,start_s,end_s,duration_s,compute_s,comm_s,reconfig_stall_s,wait_s,"
         "circuit_bytes,tor_bytes\n";
  for (const auto& r : run.iterations)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.job, r.job_name, r.iteration, r.warm ? 1 : 0,
                       num(r.start_s), num(r.end_s), num(r.end_s - r.start_s), num(r.compute_s), num(r.comm_s),
                       num(r.reconfig_stall_s), num(r.wait_s), num(r.circuit_bytes), num(r.tor_bytes));
}

void write_stages_csv(const std::string& path, const RunRecord& run) {
  auto out = open(path);
  out << "round,stage,k,t,start_s,end_s,duration_s,predicted_s,comm_s,compute_s,bound,circuits_changed,reconfig_s\n";
  for (const auto& r : run.stages)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.round, r.stage, r.k, r.t, num(r.start_s),
                       num(r.end_s), num(r.end_s - r.start_s), num(r.predicted_s), num(r.comm_s), num(r.compute_s),
                       r.bound, r.circuits_changed, num(r.reconfig_s));
}

void write_circuits_csv(const std::string& path, const RunRecord& run) {
  auto out = open(path);
  out << "time_s,oxc,pod_a,pod_b,old_circuits,new_circuits,reason\n";
  for (const auto& r : run.circuits)
    out << fmt::format("{},{},{},{},{},{},{}\n", num(r.time_s), r.oxc, r.pod_a, r.pod_b, r.old_circuits,
                       r.new_circuits, r.reason);
}

void write_chrome_trace(const std::string& path, const RunRecord& run) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  const char* process_names[] = {"", "jobs", "OCS", "scheduler"};
  for (int pid = 1; pid <= 3; ++pid)
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", process_names[pid]}}}});
  for (std::size_t tid = 0; tid < run.thread_names.size(); ++tid)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", run.thread_names[tid]}}}});
  for (const auto& e : run.events)
    events.push_back({{"name", e.name}, {"cat", e.category}, {"ph", "X"}, {"pid", e.pid}, {"tid", e.tid},
                      {"ts", e.start_s * 1e6}, {"dur", e.duration_s * 1e6}});
  nlohmann::ordered_json doc = {{"displayTimeUnit", "ms"}, {"traceEvents", events}};
  auto out = open(path);
  out << doc.dump() << "\n";
}

void write_json(const std::string& path, const nlohmann::json& value) {
  auto out = open(path);
  out << value.dump(2) << "\n";
}

}  // namespace odcn::trace
