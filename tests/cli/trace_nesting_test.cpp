// Every shipped scenario's trace.json loads in Perfetto as a nest of slices (docs/outputs.md, "trace.json"):
// Perfetto draws the slices of one thread as a stack, so two slices of one (pid, tid) must be disjoint or
// one inside the other; a slice that starts inside another and ends after it is dropped or drawn wrongly. It
// also checks the format rules each event must follow. The scenarios are the README's platform and workload
// pairs, one iteration each, all of which run in about a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_support.hpp"

namespace {

using namespace odcn::test;
using json = nlohmann::json;

struct Scenario {
  const char* platform;
  const char* workload;
  const char* policy;
};

// The README's pairs (its examples, "Scenarios" table and system sections), with the policies it runs them with.
const Scenario kScenarios[] = {
    {"clos-8pod", "small-mix", "static"},
    {"clos-8pod", "small-mix", "tdm4"},
    {"clos-8pod", "small-mix", "alone"},
    {"clos-32pod", "small-models-120", "tdm4"},
    {"clos-256pod", "llama3-1000-physical", "static"},
    {"flat-ocs-16", "graphs-dp4", "static"},
    {"photonic-rail-16", "graphs-dp4", "static"},
    {"electrical-16", "graphs-dp4", "static"},
    {"electrical-16", "kineto-ddp", "static"},
    {"photonic-rail-16", "opus-llama3-8b", "opus"},
    {"photonic-rail-16", "opus-llama3-8b", "opus:on-demand"},
    {"electrical-rail-16", "opus-llama3-8b", "opus"},
    {"flat-ocs-16", "dlrm-16", "topox"},
    {"flat-ocs-16", "dlrm-16", "topoopt"},
    {"inc-aoi-64rack", "inc-aoi-800", "inc-ljf"},
};

/// Two slices' ends may differ from each other's start by a rounding of start + duration (in µs).
constexpr double kTolerance = 1e-3;

/// The slices of one thread, as [ts, ts + dur] in µs.
using Slices = std::vector<std::pair<double, double>>;

/// How many slices start inside another of their thread and end after it.
int crossings(Slices slices) {
  std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;  // an enclosing slice first
  });
  int bad = 0;
  std::vector<double> open;  // ends of the slices enclosing the current one, innermost last
  for (const auto& [start, end] : slices) {
    while (!open.empty() && open.back() <= start + kTolerance) open.pop_back();
    if (!open.empty() && end > open.back() + kTolerance)
      ++bad;
    else
      open.push_back(end);
  }
  return bad;
}

/// Process-scoped events (a process's name and sort index, counters, instants with "s":"p") belong to no
/// thread in the Chrome trace format, and odcnsim writes them without a tid; every other event has one.
bool process_scoped(const json& e) {
  const std::string ph = e["ph"];
  if (ph == "C") return true;
  if (ph == "i") return e.value("s", "") == "p";
  return ph == "M" && (e["name"] == "process_name" || e["name"] == "process_sort_index");
}

/// The format rules, then the nesting; failures name the scenario.
void check_trace(const std::string& what, const json& doc) {
  std::map<std::pair<int, int>, Slices> threads;
  std::set<int> pids, named_pids;
  std::set<std::pair<int, int>> tids, named_tids;
  for (const auto& e : doc.at("traceEvents")) {
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << what << ": " << e;
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << what << ": " << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << what << ": " << e;
    const int pid = e["pid"];
    const bool scoped = process_scoped(e);
    if (!scoped) {
      ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << what << ": " << e;
    }
    const std::pair<int, int> thread{pid, scoped ? 0 : e["tid"].get<int>()};
    if (e["ph"] == "M") {
      if (e["name"] == "process_name") named_pids.insert(pid);
      if (e["name"] == "thread_name") named_tids.insert(thread);
      continue;
    }
    pids.insert(pid);
    if (!scoped) tids.insert(thread);
    if (e["ph"] != "X") continue;
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << what << ": " << e;
    ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << what << ": " << e;
    EXPECT_GE(e["dur"].get<double>(), 0) << what << ": " << e;
    const double ts = e["ts"];
    threads[thread].emplace_back(ts, ts + e["dur"].get<double>());
  }
  for (int pid : pids) EXPECT_TRUE(named_pids.count(pid)) << what << ": pid " << pid << " has no process_name";
  for (const auto& [pid, tid] : tids)
    EXPECT_TRUE(named_tids.count({pid, tid})) << what << ": pid " << pid << " tid " << tid << " has no thread_name";
  for (const auto& [thread, slices] : threads)
    EXPECT_EQ(crossings(slices), 0) << what << ": pid " << thread.first << " tid " << thread.second;
}

}  // namespace

TEST(TraceNesting, CrossingsAreCounted) {
  EXPECT_EQ(crossings({{0, 10}, {2, 5}, {5, 10}, {10, 12}}), 0);  // nested, touching, then after
  EXPECT_EQ(crossings({{0, 10}, {5, 15}}), 1);
  EXPECT_EQ(crossings({{0, 10}, {0, 10}, {1, 2}}), 0);  // equal slices nest
}

TEST(TraceNesting, EveryShippedScenarioNests) {
  TempDir dir;
  int n = 0;
  for (const auto& s : kScenarios) {
    const std::string what = fmt::format("{} + {} ({})", s.platform, s.workload, s.policy);
    const std::string out = dir.path(fmt::format("run{}", n++));
    const auto r = odcnsim(fmt::format("run --platform platforms/{}.yaml --workload workloads/{}.yaml --policy {} "
                                       "--iterations 1 --no-slowdown --quiet --out {}",
                                       s.platform, s.workload, s.policy, out),
                           dir);
    ASSERT_EQ(r.code, 0) << what << ": " << r.err;
    check_trace(what, read_json(out + "/trace.json"));
  }
}
