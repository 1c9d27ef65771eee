// `run --set key.path=value`: an override gives exactly the run of the edited file, is validated as the file
// is, and is recorded in run.json.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string source(const std::string& rel) { return read_file(std::string(ODCNSIM_SOURCE_DIR) + "/" + rel); }

}  // namespace

TEST(Overrides, AnOverrideGivesTheRunOfTheEditedFiles) {
  // δ = 10 ms given in the other unit than the file's (reconfig_delay_us: 200), a faster GPU, and one job's
  // placement changed through a list element and a map key.
  TempDir dir;
  const auto p = dir.write("p.yaml", replaced(source("platforms/clos-8pod.yaml"), "reconfig_delay_us: 200",
                                              "reconfig_delay_ms: 10"));
  const auto w = dir.write("w.yaml", replaced(replaced(source("workloads/small-mix.yaml"), "gpu_tflops: 26",
                                                       "gpu_tflops: 312"),
                                              "name: rar-3B", "name: ring-3B"));
  const std::string sets = "--set ocs.reconfig_delay_ms=10 --set training.gpu_tflops=312 --set jobs.1.name=ring-3B";
  for (const char* policy : {"tdm4", "static"}) {
    SCOPED_TRACE(policy);
    const auto a = dir.path(std::string("edited-") + policy), b = dir.path(std::string("set-") + policy);
    ASSERT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --policy {} --out {}", p, w, policy, a), dir).code, 0);
    const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                       "--policy {} {} --out {}",
                                       policy, sets, b),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* f : {"summary.json", "iterations.csv", "circuits.csv"})
      EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
    const auto run = read_json(b + "/run.json");
    ASSERT_EQ(run["overrides"].size(), 3u);
    EXPECT_EQ(run["overrides"][0]["file"], "platforms/clos-8pod.yaml");
    EXPECT_EQ(run["overrides"][0]["path"], "ocs.reconfig_delay_ms");
    EXPECT_EQ(run["overrides"][0]["value"], "10");
    EXPECT_EQ(run["overrides"][1]["file"], "workloads/small-mix.yaml");
    EXPECT_DOUBLE_EQ(run["platform"]["spec"]["reconfig_delay_s"].get<double>(), 0.01);
    EXPECT_NE(run["command"].get<std::string>().find(" --set ocs.reconfig_delay_ms=10 --set training.gpu_tflops=312"),
              std::string::npos);
  }
}

TEST(Overrides, BadOverridesAreOneLineNamingTheOverride) {
  TempDir dir;
  const std::string base = "run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml ";
  const struct {
    const char* set;
    const char* expected;
  } cases[] = {
      {"--set ocs.port_gbps=-1", "command line: --set ocs.port_gbps=-1: must be > 0"},
      {"--set ocs.colour=red", "command line: --set ocs.colour=red: unknown key"},
      {"--set training.gpu_tflops=fast", "command line: --set training.gpu_tflops=fast: must be a number"},
      {"--set jobs.7.train_s=1", "command line: --set jobs.7.train_s=1: jobs has 3 elements; '7' is none of them"},
      {"--set colour=red", "command line: --set colour=red: 'colour' is no key of a platform or a workload"},
      {"--set name=x", "command line: --set: 'name' is in the platform and in the workload"},
      {"--set ocs.port_gbps", "command line: --set: expects key.path=value"},
      {"--set ocs..port_gbps=1", "command line: --set: 'ocs..port_gbps' has an empty key"},
      {"--set pods.count.x=1", "command line: --set pods.count.x=1: pods.count is a single value"},
  };
  for (const auto& c : cases) {
    const auto r = odcnsim(base + c.set + " --out " + dir.path("o"), dir);
    EXPECT_EQ(r.code, 2) << c.set;
    EXPECT_EQ(r.err.rfind(c.expected, 0), 0u) << c.set << " -> " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path("o")));
  }
}

TEST(Overrides, ReachTheFormatVersionTheComputeModelAndTheTorModel) {
  // Keys that are not in the file yet: --set adds them, and the run is that of the file with them written in.
  TempDir dir;
  const std::string mix = source("workloads/small-mix.yaml");
  const struct {
    const char* set;
    std::string text;
  } cases[] = {{"--set version=2", "version: 2\n" + mix},
               {"--set traffic.tor=physical", "traffic: {tor: physical}\n" + mix},
               {"--set training.model=physical --set training.precision=tf32",
                replaced(mix, "training:\n", "training:\n  model: physical\n  precision: tf32\n")}};
  int i = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    const auto w = dir.write(fmt::format("w{}.yaml", i), c.text);
    const auto a = dir.path(fmt::format("edited{}", i)), b = dir.path(fmt::format("set{}", i));
    ++i;
    ASSERT_EQ(odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload {} --policy tdm4 --no-slowdown "
                                  "--out {}",
                                  w, a),
                      dir)
                  .code,
              0);
    const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                       "--policy tdm4 --no-slowdown {} --out {}",
                                       c.set, b),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* f : {"summary.json", "iterations.csv", "stages.csv"})
      EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
  }
}

// Mistakes a new user makes: a misspelt key or search gets the nearest name, and a platform and a workload given
// the wrong way round are said to be that.
TEST(Overrides, MisspeltNamesGetTheNearestAndSwappedFilesAreNamed) {
  TempDir dir;
  const std::string p = "platforms/clos-8pod.yaml", w = "workloads/small-mix.yaml";
  const auto one_line = [&](const std::string& args, const std::string& message) {
    const auto r = odcnsim("run " + args + " --out " + dir.path("out"), dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, message + "\n") << args;
    EXPECT_FALSE(std::filesystem::exists(dir.path("out")));
  };
  one_line(fmt::format("--platform {} --workload {} --set ocs.reconfig_delay_uss=5", p, w),
           "command line: --set ocs.reconfig_delay_uss=5: unknown key (allowed: ports_per_pod, port_gbps, oxcs, "
           "ports_per_oxc, pods_per_group, reconfig_delay_us, reconfig_delay_ms, duplex, base_topology); did you mean "
           "'reconfig_delay_us'?");
  one_line(fmt::format("--platform {} --workload {} --set ocs.zzz=5", p, w),
           "command line: --set ocs.zzz=5: unknown key (allowed: ports_per_pod, port_gbps, oxcs, ports_per_oxc, "
           "pods_per_group, reconfig_delay_us, reconfig_delay_ms, duplex, base_topology)");
  one_line(fmt::format("--platform {} --workload {} --policy tdm4 --search multistrat", p, w),
           "command line: --search: unknown search 'multistrat' (expected paper, threshold or multistart); did you "
           "mean 'multistart'?");
  one_line(fmt::format("--platform {} --workload {}", w, p),
           w + ": (file): is a workload, given as --platform (it has 'jobs'); did you swap --platform and --workload?");
  one_line(fmt::format("--platform {0} --workload {0}", p), p + ": (file): is a platform, given as --workload (it has 'kind')");
  one_line(fmt::format("--platform docs/examples/job-graph-dp4.json --workload {}", w),
           "docs/examples/job-graph-dp4.json: (file): is a workload, given as --platform (it has 'format')");
}
