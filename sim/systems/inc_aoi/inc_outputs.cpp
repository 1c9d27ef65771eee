#include "systems/inc_aoi/inc_outputs.hpp"

#include <fmt/format.h>

#include <iostream>

#include "trace/writers.hpp"

namespace odcn::sched {

namespace {

using Json = nlohmann::ordered_json;
using trace::num;

/// Each job's inter-rack bytes as the engine measured them (bytes over circuits).
std::vector<Bytes> measured_inter_rack(const trace::RunRecord& rec, std::size_t jobs) {
  std::vector<Bytes> measured(jobs, 0);
  for (const auto& r : rec.iterations) measured[static_cast<std::size_t>(r.job)] += r.circuit_bytes;
  return measured;
}

void write_ps_jobs_csv(trace::FileWriter csv, const std::vector<workload::PsJob>& jobs, const IncAoiController& c,
                       const trace::RunRecord& rec, const std::vector<Bytes>& measured) {
  csv.write("job,workers,racks,root_rack,push_bytes,compute_s,iterations,arrival_s,started_s,done_s,jct_s,"
            "inc_collectives,ps_collectives,inter_rack_bytes,inter_rack_bytes_inc,inter_rack_bytes_noinc,model,name\n");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    const auto& t = rec.jobs[i];
    csv.write(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", j.id, j.workers(), j.racks(),
                          j.root_rack(), num(j.push_bytes), num(j.compute_s), j.iterations, num(j.arrival_s),
                          num(c.admitted_s()[i]), num(t.done_s), num(t.done_s - j.arrival_s), c.inc_collectives()[i],
                          c.ps_collectives()[i], num(measured[i]), num(2 * workload::inter_rack_bytes(j, true)),
                          num(2 * workload::inter_rack_bytes(j, false)), trace::csv_field(j.model),
                          trace::csv_field(j.name)));
  }
  csv.close();
}

void write_slots_csv(trace::FileWriter slots, const IncAoiController& c) {
  slots.write("time_s,waiting,running,started,inc_jobs,inc_max_per_tor,circuits_lit,circuits_changed,cohort,"
              "spanning_started,allocations,head_blocked_by\n");
  for (const auto& s : c.slots())
    slots.write(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", num(s.time_s), s.waiting, s.running, s.admitted,
                            s.inc_assigned, s.inc_max_per_tor, s.circuits_lit, s.circuits_changed, s.cohort,
                            s.spanning_started, s.allocations, s.blocked));
  slots.close();
}

}  // namespace

Json ps_jobs_json(const std::vector<workload::PsJob>& jobs) {
  Json out = Json::array();
  for (const auto& j : jobs)
    out.push_back({{"id", j.id}, {"name", j.name}, {"model", j.model}, {"arrival_s", j.arrival_s},
                   {"push_bytes", j.push_bytes}, {"compute_s", j.compute_s}, {"iterations", j.iterations},
                   {"servers", j.server_of_rank},
                   {"ps_server", j.ps.mode == spec::PsServer::dedicated ? Json(j.ps.server) : Json(nullptr)}});
  return out;
}

Json inc_extras(trace::OutputDir& out, const std::vector<workload::PsJob>& jobs, const IncAoiController& c,
                const net::Network& network, const trace::RunRecord& rec, Seconds slot_s) {
  const std::vector<Bytes> measured = measured_inter_rack(rec, jobs.size());
  write_ps_jobs_csv(out.open("ps_jobs.csv"), jobs, c, rec, measured);
  write_slots_csv(out.open("slots.csv"), c);
  int inc_total = 0, ps_total = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    inc_total += c.inc_collectives()[i];
    ps_total += c.ps_collectives()[i];
  }
  Bytes inter_rack = 0;
  for (Bytes b : measured) inter_rack += b;
  // Every reading of "an AOI reconfiguration" (docs/inc-aoi.md, "Reconfigurations: every reading").
  int changed = 0, allocations = 0, spanning_slots = 0, servers_blocked = 0, ports_blocked = 0;
  for (const auto& s : c.slots()) {
    changed += s.circuits_changed;
    allocations += s.allocations;
    spanning_slots += s.spanning_started > 0;
    servers_blocked += s.blocked == "servers";
    ports_blocked += s.blocked == "ports";
  }
  const Json readings = {{"events", c.reconfigurations()},
                         {"circuits_changed", changed},
                         {"job_allocations", allocations},
                         {"spanning_jobs", c.spanning_jobs()},
                         {"slots_starting_spanning_jobs", spanning_slots}};
  return {{"inc_aoi",
           {{"slot_s", slot_s},
            {"slots", c.slots().size()},
            {"batch_completion_s", rec.makespan_s},
            {"inc_collectives", inc_total},
            {"ps_collectives", ps_total},
            {"inc_share", inc_total + ps_total > 0 ? static_cast<double>(inc_total) / (inc_total + ps_total) : 0.0},
            {"peak_inc_jobs_per_tor", c.peak_inc_per_tor()},
            {"inc_jobs_per_tor", network.inc_jobs},
            {"inter_rack_bytes", inter_rack},
            {"reconfiguration_readings", readings},
            {"fcfs_head_blocked_slots", {{"servers", servers_blocked}, {"ports", ports_blocked}}}}}};
}

void print_inc(const Json& extras, const trace::RunRecord& rec, const net::Network& network) {
  const Json& x = extras["inc_aoi"];
  const int inc = x["inc_collectives"].get<int>(), ps = x["ps_collectives"].get<int>();
  std::cout << fmt::format("  batch completion  {:.3f} s; {} of {} collectives aggregated in ToRs (peak {} jobs "
                           "per ToR of {})\n",
                           rec.makespan_s, inc, inc + ps, x["peak_inc_jobs_per_tor"].get<int>(), network.inc_jobs);
}

}  // namespace odcn::sched
