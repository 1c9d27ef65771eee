// trace.json as a person reads it in ui.perfetto.dev (docs/outputs.md): its events have the fields their phase
// needs, every process and thread that has events is named once (and no other), the fabric's reconfigurations
// and lit circuits agree with circuits.csv, the job slices' args with iterations.csv, and --trace summary keeps
// everything but the job task slices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <queue>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "cli/cli_support.hpp"

using namespace odcn::test;
using nlohmann::json;

namespace {

/// δ of a platform file (reconfig_delay_us or _ms), in seconds.
double reconfig_delay_s(const std::string& platform) {
  const std::string text = read_file(std::string(ODCNSIM_SOURCE_DIR) + "/" + platform);
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(R"(reconfig_delay_(us|ms):\s*([0-9.eE+-]+))"))) return 0;
  return std::stod(m[2].str()) * (m[1] == "us" ? 1e-6 : 1e-3);
}

bool near(double a, double b, double rel = 1e-9) {
  return std::abs(a - b) <= rel * std::max({std::abs(a), std::abs(b), 1e-300}) || a == b;
}

/// The run's folders: full and summary traces of the same inputs.
struct Scenario {
  std::string platform, workload, policy;
  bool reconfigures = false;  ///< circuits.csv has rows besides the initial ones
  bool switches = true;       ///< the fabric has switches with circuits
  std::string switch_name;    ///< a switch process's name without its number ("OXC", ...)
};

std::string run_args(const Scenario& s, const std::string& out, const std::string& trace) {
  return fmt::format("run --platform {} --workload {} --policy {} --trace {} --no-slowdown --quiet --out {}", s.platform,
                     s.workload, s.policy, trace, out);
}

/// What trace.json says, read back: processes by pid, and events (metadata apart).
struct Trace {
  json doc;
  std::map<int, std::string> process;            ///< pid -> name
  std::map<int, int> sort_index;                 ///< pid -> process_sort_index
  std::map<std::pair<int, int>, std::string> thread;  ///< (pid, tid) -> name
  std::vector<json> events;                      ///< non-metadata, in file order
  /// pid of each switch process, by switch number (parsed from the name), and the scheduler's (-1: none).
  std::map<int, int> switch_of_pid;
  int scheduler = -1;
};

/// Parses and checks the shape: the fields each phase needs, one name per process and thread that has
/// events and none for any other, metadata before the first event of its process or thread, and distinct
/// pids and tids (Perfetto keys threads by tid alone).
void read_trace(const std::string& path, const std::string& switch_name, Trace& t) {
  t.doc = read_json(path);  // throws (the test fails) when the file is not JSON
  EXPECT_TRUE(t.doc.is_object());
  EXPECT_EQ(t.doc.value("displayTimeUnit", ""), "ms");
  const auto& list = t.doc.at("traceEvents");
  EXPECT_TRUE(list.is_array());
  std::map<int, int> process_names, sort_indices;
  std::map<std::pair<int, int>, int> thread_names;
  std::set<int> used_pids;
  std::set<std::pair<int, int>> used_threads;
  for (const auto& e : list) {
    ASSERT_TRUE(e.is_object()) << e;
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e;
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    EXPECT_GT(pid, 0) << e;
    if (ph == "M") {
      ASSERT_TRUE(e.contains("args") && e["args"].is_object()) << e;
      const std::string name = e["name"];
      if (name == "process_name") {
        ASSERT_TRUE(e["args"]["name"].is_string()) << e;
        EXPECT_FALSE(used_pids.count(pid)) << "named after its first event: " << e;
        ++process_names[pid];
        t.process[pid] = e["args"]["name"];
      } else if (name == "process_sort_index") {
        ASSERT_TRUE(e["args"]["sort_index"].is_number_integer()) << e;
        ++sort_indices[pid];
        t.sort_index[pid] = e["args"]["sort_index"];
      } else if (name == "thread_sort_index") {  // a rank's lanes (docs/outputs.md)
        ASSERT_TRUE(e.contains("tid") && e["args"]["sort_index"].is_number_integer()) << e;
      } else if (name == "thread_name") {
        ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
        ASSERT_TRUE(e["args"]["name"].is_string()) << e;
        const std::pair<int, int> key{pid, e["tid"].get<int>()};
        EXPECT_FALSE(used_threads.count(key)) << "named after its first event: " << e;
        ++thread_names[key];
        t.thread[key] = e["args"]["name"];
      } else {
        ADD_FAILURE() << "unexpected metadata " << e;
      }
      continue;
    }
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
    EXPECT_GE(e["ts"].get<double>(), 0) << e;
    ASSERT_TRUE(e.contains("cat") && e["cat"].is_string()) << e;
    if (e.contains("args")) {
      EXPECT_TRUE(e["args"].is_object()) << e;
    }
    used_pids.insert(pid);
    if (ph == "X") {
      ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << e;
      EXPECT_GE(e["dur"].get<double>(), 0) << e;
      used_threads.insert({pid, e["tid"].get<int>()});
    } else if (ph == "i") {
      EXPECT_EQ(e.value("s", ""), "p") << e;
    } else if (ph == "C") {
      ASSERT_TRUE(e.contains("args") && e["args"].is_object() && !e["args"].empty()) << e;
      for (const auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << e;
    } else {
      ADD_FAILURE() << "unexpected phase " << e;
    }
    t.events.push_back(e);
  }
  // Exactly one name per used process and thread; none for the others.
  for (int pid : used_pids) {
    EXPECT_EQ(process_names[pid], 1) << "pid " << pid;
    EXPECT_EQ(sort_indices[pid], 1) << "pid " << pid;
  }
  for (const auto& [pid, n] : process_names) EXPECT_TRUE(used_pids.count(pid)) << "process without events " << pid;
  for (const auto& [pid, n] : sort_indices) EXPECT_TRUE(used_pids.count(pid)) << "process without events " << pid;
  for (const auto& key : used_threads) EXPECT_EQ(thread_names[key], 1) << key.first << "/" << key.second;
  for (const auto& [key, n] : thread_names) EXPECT_TRUE(used_threads.count(key)) << "thread without events";
  // A tid belongs to one process, and is no other process's pid.
  std::map<int, int> pid_of_tid;
  for (const auto& [pid, tid] : used_threads) {
    EXPECT_TRUE(!pid_of_tid.count(tid) || pid_of_tid[tid] == pid) << "tid " << tid << " in two processes";
    pid_of_tid[tid] = pid;
    EXPECT_TRUE(tid == pid || !used_pids.count(tid)) << "tid " << tid << " is also a pid";
    EXPECT_GT(tid, 0);
  }
  // Which process is which.
  // ("OXC 3"; a flat_ocs fabric's one process, "OCS layer", is switch 0 as in circuits.csv)
  const std::regex sw(switch_name.empty() ? std::string("^$^") : "^" + switch_name + "( ([0-9]+))?$");
  for (const auto& [pid, name] : t.process) {
    std::smatch m;
    if (std::regex_match(name, m, sw)) t.switch_of_pid[pid] = m[2].matched ? std::stoi(m[2].str()) : 0;
    if (name == "scheduler") t.scheduler = pid;
  }
  // Jobs first, then switches, then the scheduler.
  int last_job = std::numeric_limits<int>::min(), first_switch = std::numeric_limits<int>::max();
  int last_switch = std::numeric_limits<int>::min();
  for (const auto& [pid, index] : t.sort_index) {
    if (t.switch_of_pid.count(pid)) {
      first_switch = std::min(first_switch, index);
      last_switch = std::max(last_switch, index);
    } else if (pid != t.scheduler) {
      last_job = std::max(last_job, index);
    }
  }
  if (!t.switch_of_pid.empty()) {
    EXPECT_LT(last_job, first_switch);
  }
  if (t.scheduler >= 0) {
    EXPECT_LT(last_job, t.sort_index[t.scheduler]);
    EXPECT_LT(last_switch, t.sort_index[t.scheduler]);
  }
}

double seconds(const json& e, const char* key = "ts") { return e[key].get<double>() * 1e-6; }

/// The lit circuits of every switch over time, from circuits.csv alone: a pair keeps min(old, new) circuits
/// lit at a change, its added circuits light δ later, unless a later change of the pair came first (then they
/// light with that change's own set-up; circuits already being set up that a removal keeps light when their
/// set-up ends). Returns, per switch, the times at which its count changed and the count after them.
std::map<int, std::vector<std::pair<double, int>>> lit_from_circuits(const Csv& c, double delta) {
  struct Pair {
    int cur = 0, lit = 0, sw = 0;
    unsigned gen = 0;
    double window_end = 0;
  };
  std::map<std::tuple<int, int, int>, Pair> pairs;
  using Rise = std::tuple<double, std::tuple<int, int, int>, unsigned>;
  std::priority_queue<Rise, std::vector<Rise>, std::greater<>> rises;
  std::map<int, int> total;
  std::map<int, std::vector<std::pair<double, int>>> out;
  const auto note = [&](double t) {
    for (const auto& [sw, n] : total) {
      auto& v = out[sw];
      const int before = v.empty() ? 0 : v.back().second;
      if (n != before) v.emplace_back(t, n);
    }
  };
  const auto rise_until = [&](double t) {  // set-ups that end before t, or with it
    while (!rises.empty() && std::get<0>(rises.top()) <= t) {
      const double when = std::get<0>(rises.top());
      while (!rises.empty() && std::get<0>(rises.top()) == when) {
        const auto [time, key, gen] = rises.top();
        rises.pop();
        Pair& p = pairs[key];
        if (p.gen != gen) continue;
        total[p.sw] += p.cur - p.lit;
        p.lit = p.cur;
      }
      note(when);
    }
  };
  for (std::size_t r = 0; r < c.rows.size();) {
    const double t = c.num(r, "time_s");
    rise_until(t);
    for (; r < c.rows.size() && c.num(r, "time_s") == t; ++r) {
      const int sw = std::stoi(c.at(r, "oxc"));
      const auto key = std::make_tuple(sw, std::stoi(c.at(r, "pod_a")), std::stoi(c.at(r, "pod_b")));
      Pair& p = pairs[key];
      p.sw = sw;
      const int before = std::stoi(c.at(r, "old_circuits")), after = std::stoi(c.at(r, "new_circuits"));
      EXPECT_EQ(p.cur, before) << "circuits.csv row " << r;
      if (c.at(r, "reason") == "initial") {
        p.cur = p.lit = after;
        total[sw] += after;
        continue;
      }
      const bool pending = p.lit < before;
      total[sw] -= p.lit - std::min(p.lit, after);
      p.lit = std::min(p.lit, after);
      ++p.gen;
      if (after > before) {
        p.window_end = t + delta;
        rises.emplace(t + delta, key, p.gen);
      } else if (pending && p.lit < after) {
        rises.emplace(p.window_end, key, p.gen);
      }
      p.cur = after;
    }
    note(t);
  }
  rise_until(std::numeric_limits<double>::infinity());
  return out;
}

/// Sums per job of the slices' args (comm bytes, stall) and of iterations.csv's columns.
struct PerJob {
  std::map<int, double> bytes, stall;
};

void check_scenario(const Scenario& s) {
  TempDir dir;
  const std::string full = dir.path("full"), summary = dir.path("summary");
  auto r = odcnsim(run_args(s, full, "full"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = odcnsim(run_args(s, summary, "summary"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const double delta = reconfig_delay_s(s.platform);
  Trace t;
  read_trace(full + "/trace.json", s.switch_name, t);
  if (::testing::Test::HasFatalFailure()) return;
  const Csv circuits = read_table(full + "/circuits.csv");
  const Csv iterations = read_table(full + "/iterations.csv");

  // ---- the fabric: reconfigurations and lit circuits ----
  EXPECT_EQ(!t.switch_of_pid.empty(), s.switches);
  std::map<std::pair<double, int>, int> csv_changes;  // (time µs, switch) -> circuits changed
  std::map<std::pair<double, int>, int> csv_added;
  for (std::size_t i = 0; i < circuits.rows.size(); ++i) {
    if (circuits.at(i, "reason") == "initial") continue;
    const auto key = std::make_pair(circuits.num(i, "time_s") * 1e6, std::stoi(circuits.at(i, "oxc")));
    const int before = std::stoi(circuits.at(i, "old_circuits")), after = std::stoi(circuits.at(i, "new_circuits"));
    csv_changes[key] += std::abs(after - before);
    csv_added[key] += std::max(0, after - before);
  }
  EXPECT_EQ(!csv_changes.empty(), s.reconfigures);
  std::map<std::pair<double, int>, int> instants;
  std::map<int, std::map<double, int>> counters;  // switch -> ts -> the last value given at ts
  for (const auto& e : t.events) {
    const int pid = e["pid"];
    const bool on_switch = t.switch_of_pid.count(pid) > 0;
    const std::string ph = e["ph"], cat = e["cat"];
    if (cat == "compute" || cat == "comm") {
      EXPECT_EQ(ph, "X") << e;
      EXPECT_FALSE(on_switch) << e;
      EXPECT_NE(pid, t.scheduler) << e;
    }
    if (ph == "i") {
      ASSERT_TRUE(on_switch) << e;
      EXPECT_EQ(e["name"], "reconfigure");
      const int sw = t.switch_of_pid.at(pid);
      const auto key = std::make_pair(e["ts"].get<double>(), sw);
      const auto& a = e["args"];
      ASSERT_TRUE(a["reason"].is_string() && a["circuits"].is_number_integer() && a["delay_s"].is_number()) << e;
      instants[key] += a["circuits"].get<int>();
      EXPECT_EQ(a["added"].get<int>() + a["removed"].get<int>(), a["circuits"].get<int>()) << e;
      EXPECT_EQ(a["delay_s"].get<double>(), a["added"].get<int>() > 0 ? delta : 0.0) << e;
    } else if (ph == "C") {
      ASSERT_TRUE(on_switch) << e;
      EXPECT_EQ(e["name"], "lit circuits");
      ASSERT_TRUE(e["args"]["value"].is_number_integer()) << e;
      counters[t.switch_of_pid.at(pid)][e["ts"].get<double>()] = e["args"]["value"].get<int>();
    } else if (ph == "X" && on_switch) {  // the set-up window of the circuits added there
      const auto key = std::make_pair(e["ts"].get<double>(), t.switch_of_pid.at(pid));
      EXPECT_GT(csv_added[key], 0) << e;
      EXPECT_EQ(e["args"]["circuits"].get<int>(), csv_added[key]) << e;
      EXPECT_TRUE(near(seconds(e, "dur"), delta)) << e;
    }
  }
  EXPECT_EQ(instants, csv_changes);
  // Counters: compressed to the changes of value (the same instant may report a drop, then a rise back).
  std::map<int, std::vector<std::pair<double, int>>> reported;
  for (const auto& [sw, by_time] : counters)
    for (const auto& [ts, v] : by_time) {
      auto& list = reported[sw];
      if ((list.empty() ? 0 : list.back().second) != v) list.emplace_back(ts * 1e-6, v);
    }
  auto expected = lit_from_circuits(circuits, delta);
  for (auto it = expected.begin(); it != expected.end();)
    it = it->second.empty() ? expected.erase(it) : std::next(it);
  ASSERT_EQ(reported.size(), expected.size());
  for (const auto& [sw, list] : expected) {
    const auto& got = reported[sw];
    ASSERT_EQ(got.size(), list.size()) << "switch " << sw;
    for (std::size_t i = 0; i < list.size(); ++i) {
      EXPECT_TRUE(near(got[i].first, list[i].first, 1e-12) || std::abs(got[i].first - list[i].first) < 1e-12)
          << "switch " << sw << " change " << i << ": " << got[i].first << " vs " << list[i].first;
      EXPECT_EQ(got[i].second, list[i].second) << "switch " << sw << " at " << list[i].first;
    }
  }
  if (s.switches && !circuits.rows.empty()) {
    EXPECT_FALSE(reported.empty());
  }

  // ---- job slices: args, and sums that match iterations.csv ----
  std::map<std::pair<int, int>, bool> warm;  // (job, iteration) -> warm
  std::map<int, std::string> job_name;
  PerJob csv, slices;
  for (std::size_t i = 0; i < iterations.rows.size(); ++i) {
    const int job = std::stoi(iterations.at(i, "job"));
    warm[{job, std::stoi(iterations.at(i, "iteration"))}] = iterations.at(i, "warm") == "1";
    job_name[job] = iterations.at(i, "job_name");
    csv.bytes[job] += iterations.num(i, "circuit_bytes") + iterations.num(i, "tor_bytes");
    csv.stall[job] += iterations.num(i, "reconfiguration_stall_s");
  }
  const std::string word = s.platform.find("clos") != std::string::npos ? "pods" : "servers";
  std::map<int, std::pair<int, int>> thread_of_job;  // job -> (pid, tid), pod-level jobs
  std::map<int, int> rank_process;                    // job -> pid, rank-level jobs
  std::set<std::string> counted;                      // rank-level communications already summed
  int comm = 0, compute = 0;
  for (const auto& e : t.events) {
    const std::string cat = e["cat"];
    if (cat != "compute" && cat != "comm") continue;
    const auto& a = e["args"];
    ASSERT_TRUE(a["job"].is_number_integer() && a["iteration"].is_number_integer() && a["warm"].is_boolean()) << e;
    const int job = a["job"];
    const std::pair<int, int> where{e["pid"].get<int>(), e["tid"].get<int>()};
    if (a.contains("rank")) {  // a rank-level job: its own process, a thread per rank and lane
      EXPECT_EQ(t.process.at(where.first), job_name.at(job)) << e;
      EXPECT_EQ(t.thread.at(where).rfind(fmt::format("rank {} ", a["rank"].get<int>()), 0), 0u) << e;
      if (!rank_process.count(job)) rank_process[job] = where.first;
      EXPECT_EQ(rank_process[job], where.first) << "job " << job << " in two processes";
      // A communication is on each of its ranks' threads; its bytes count once.
      json copy = e;
      copy["args"].erase("rank");
      copy.erase("tid");
      if (cat == "comm" && !counted.insert(copy.dump()).second) continue;
    } else {
      EXPECT_TRUE(!thread_of_job.count(job) || thread_of_job[job] == where) << "job " << job << " on two threads";
      thread_of_job[job] = where;
      EXPECT_EQ(t.thread.at(where), job_name.at(job));
    }
    const auto row = warm.find({job, a["iteration"].get<int>()});
    ASSERT_NE(row, warm.end()) << e;
    EXPECT_EQ(a["warm"].get<bool>(), row->second) << e;
    if (cat == "compute") {
      ++compute;
      continue;
    }
    ++comm;
    ASSERT_TRUE(a["bytes"].is_number() && a["stall_s"].is_number() && a[word].is_array()) << e;
    EXPECT_LE(a[word].size(), 16u) << e;
    EXPECT_GE(a[word].size(), 1u) << e;
    if (a.contains(word + "_total")) {
      EXPECT_GT(a[word + "_total"].get<std::size_t>(), 16u) << e;
    }
    slices.bytes[job] += a["bytes"].get<double>();
    slices.stall[job] += a["stall_s"].get<double>();
  }
  EXPECT_GT(comm, 0);
  EXPECT_GT(compute, 0);
  EXPECT_EQ(thread_of_job.size() + rank_process.size(), job_name.size());
  for (const auto& [job, bytes] : csv.bytes) {
    EXPECT_TRUE(near(slices.bytes[job], bytes)) << "job " << job << ": " << slices.bytes[job] << " vs " << bytes;
    EXPECT_TRUE(near(slices.stall[job], csv.stall[job]))
        << "job " << job << ": " << slices.stall[job] << " vs " << csv.stall[job];
  }
  // The threads' tids are the jobs' ids + 1, and the job processes hold nothing else.
  for (const auto& [job, where] : thread_of_job) EXPECT_EQ(where.second, job + 1);

  // ---- stages (TDM policies): one slice per stages.csv row, with its args ----
  if (s.policy == "tdm4") {
    const Csv stages = read_table(full + "/stages.csv");
    std::vector<const json*> slices_of_stages;
    for (const auto& e : t.events)
      if (e["cat"] == "stage") {
        EXPECT_EQ(e["pid"], t.scheduler);
        slices_of_stages.push_back(&e);
      }
    ASSERT_EQ(slices_of_stages.size(), stages.rows.size());
    EXPECT_EQ(t.process.at(t.scheduler), "scheduler");
    for (std::size_t i = 0; i < stages.rows.size(); ++i) {
      const auto& a = (*slices_of_stages[i])["args"];
      EXPECT_EQ(a["predicted_s"].get<double>(), stages.num(i, "predicted_s"));
      EXPECT_EQ(a["bound"].get<std::string>(), stages.at(i, "bound"));
      EXPECT_EQ(a["circuits_changed"].get<int>(), std::stoi(stages.at(i, "circuits_changed")));
      EXPECT_EQ(a["reconfig_s"].get<double>(), stages.num(i, "reconfig_s"));
      EXPECT_TRUE(near(seconds(*slices_of_stages[i]), stages.num(i, "start_s")));
    }
  } else {
    EXPECT_EQ(t.scheduler, -1) << "a scheduler process without stages";
  }

  // ---- --trace summary: the same without the job task slices ----
  Trace sum;
  read_trace(summary + "/trace.json", s.switch_name, sum);
  if (::testing::Test::HasFatalFailure()) return;
  const auto kept = [](const Trace& tr) {
    std::vector<std::string> v;  // events with their process's name in place of the pid
    for (auto e : tr.events) {
      if (e["cat"] == "compute" || e["cat"] == "comm") continue;
      e["pid"] = tr.process.at(e["pid"].get<int>());
      if (e.contains("tid")) e["tid"] = e["pid"];
      v.push_back(e.dump());
    }
    return v;
  };
  for (const auto& e : sum.events) EXPECT_TRUE(e["cat"] != "compute" && e["cat"] != "comm") << e;
  EXPECT_EQ(kept(sum), kept(t));
  for (const auto& [pid, name] : sum.process) {
    bool known = false;
    for (const auto& [p, n] : t.process) known = known || n == name;
    EXPECT_TRUE(known) << name;
  }
}

}  // namespace

TEST(Trace, AloneReconfiguresBetweenJobs) {
  check_scenario({"platforms/clos-8pod.yaml", "workloads/small-mix.yaml", "alone", true, true, "OXC"});
}

TEST(Trace, StaticLightsItsCircuitsOnce) {
  check_scenario({"platforms/clos-8pod.yaml", "workloads/small-mix.yaml", "static", false, true, "OXC"});
}

TEST(Trace, Tdm4OnEightPods) {
  check_scenario({"platforms/clos-8pod.yaml", "workloads/small-mix.yaml", "tdm4", false, true, "OXC"});
}

TEST(Trace, Tdm4ReconfiguresOnThirtyTwoPods) {
  check_scenario({"platforms/clos-32pod.yaml", "workloads/small-models-120.yaml", "tdm4", true, true, "OXC"});
}

TEST(Trace, FlatOcsJobGraphs) {
  check_scenario({"platforms/flat-ocs-16.yaml", "workloads/graphs-dp4.yaml", "static", false, true, "OCS layer"});
}

TEST(Trace, ElectricalHasNoSwitchProcesses) {
  check_scenario({"platforms/electrical-16.yaml", "workloads/graphs-dp4.yaml", "static", false, false, ""});
}

TEST(Trace, IdenticalInputsGiveIdenticalBytes) {
  TempDir dir;
  for (const char* policy : {"alone", "tdm4"}) {
    const Scenario s{"platforms/clos-8pod.yaml", "workloads/small-mix.yaml", policy, false, true, "OXC"};
    for (const char* run : {"a", "b"}) {
      const auto r = odcnsim(run_args(s, dir.path(std::string(run) + policy), "full"), dir);
      ASSERT_EQ(r.code, 0) << r.err;
    }
    const std::string a = read_file(dir.path(std::string("a") + policy + "/trace.json"));
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, read_file(dir.path(std::string("b") + policy + "/trace.json"))) << policy;
  }
}

// Issue 27's CSV noise, as a guard over whole runs: no number in a result's tables is a rounding residue
// (non-zero, below 1e-12 of the largest value of its column). These runs had none before the
// hidden_communication_s fix either; that fix itself is tested on a row in metrics_test.
TEST(Trace, NoCsvNumberIsARoundingResidue) {
  TempDir dir;
  for (const char* policy : {"tdm4", "static", "aggregate"}) {
    SCOPED_TRACE(policy);
    const std::string out = dir.path(std::string("r-") + policy);
    const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                       "--policy {} --iterations 3 --no-slowdown --quiet --out {}",
                                       policy, out),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    int numbers = 0;
    for (const char* file : {"iterations.csv", "jobs.csv", "stages.csv"}) {
      if (!std::filesystem::exists(out + "/" + file)) continue;
      const Csv t = read_table(out + "/" + file);
      for (const auto& [name, col] : t.column) {
        double largest = 0;
        std::vector<double> values;
        for (const auto& row : t.rows) {
          char* end = nullptr;
          const double v = std::strtod(row[col].c_str(), &end);
          if (row[col].empty() || *end != '\0') continue;
          values.push_back(v);
          largest = std::max(largest, std::abs(v));
        }
        for (const double v : values) {
          EXPECT_TRUE(v == 0 || std::abs(v) >= 1e-12 * largest) << file << " " << name << " " << v;
          ++numbers;
        }
      }
    }
    EXPECT_GT(numbers, 100);
  }
}
