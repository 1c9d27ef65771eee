// `odcnsim show`: every key resolved (file, --set, default) with its unit, TDM-4's jobs as run builds them, and
// `--list-keys`, the key tables.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

/// The row of `field` in show's output: its value and source, split on runs of two or more blanks.
std::vector<std::string> row(const std::string& out, const std::string& field) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  " + field + "  ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::size_t at = 2;
    while (at < line.size()) {
      const auto gap = line.find("  ", at);
      cells.push_back(line.substr(at, gap == std::string::npos ? std::string::npos : gap - at));
      if (gap == std::string::npos) break;
      at = line.find_first_not_of(' ', gap);
    }
    return cells;
  }
  return {};
}

}  // namespace

TEST(Show, EveryKeyResolvedWithItsUnitAndSource) {
  TempDir dir;
  const auto r = odcnsim("show --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                         "--set ocs.reconfig_delay_ms=1 --set training.gpu_tflops=52",
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(row(r.out, "ocs.reconfig_delay_ms"), (std::vector<std::string>{"ocs.reconfig_delay_ms", "1 ms", "--set"}));
  EXPECT_TRUE(row(r.out, "ocs.reconfig_delay_us").empty());  // replaced by its sibling, as run replaces it
  EXPECT_EQ(row(r.out, "pods.count"), (std::vector<std::string>{"pods.count", "8", "file"}));
  EXPECT_EQ(row(r.out, "pods.tor_gbps"), (std::vector<std::string>{"pods.tor_gbps", "600 Gb/s", "file"}));
  EXPECT_EQ(row(r.out, "ocs.duplex"), (std::vector<std::string>{"ocs.duplex", "half", "default"}));
  EXPECT_EQ(row(r.out, "training.gpu_tflops"),
            (std::vector<std::string>{"training.gpu_tflops", "52 TFLOP/s", "--set"}));
  EXPECT_EQ(row(r.out, "training.model"), (std::vector<std::string>{"training.model", "tang-eq8", "default"}));
  EXPECT_EQ(row(r.out, "jobs[1].placement"),
            (std::vector<std::string>{"jobs[1].placement", "{2: 4, 3: 2, 4: 4, 5: 6}", "file"}));
  // ps-1B's training time, TDM-4's Eq. (8): K x tokens x params / (F_GPU x efficiency), 52 TFLOP/s set above.
  const double eq8 = 8.0 * 8192 * 2.46e9 / (52e12 * 0.4);
  std::istringstream in(r.out.substr(r.out.find("jobs as run builds them (3 listed)")));
  std::string line, name, type, model;
  std::getline(in, line);
  std::getline(in, line);  // the header
  std::getline(in, line);
  std::istringstream cells(line);
  int gpus = 0, pods = 0;
  double train_s = 0;
  cells >> name >> type >> model >> gpus >> pods >> train_s;
  EXPECT_EQ(name, "ps-1B");
  EXPECT_EQ(gpus, 16);
  EXPECT_EQ(pods, 4);
  EXPECT_NEAR(train_s, eq8, eq8 * 1e-5);  // printed to 6 digits
}

TEST(Show, TheComputeModelsDefaultsFollowTheDocument) {
  TempDir dir;
  const auto w = dir.write("w.yaml", "version: 2\ntraining: {precision: fp64}\ngenerator: {jobs: 2, seed: 5}\n");
  const auto r = odcnsim("show --platform platforms/clos-8pod.yaml --workload " + w, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // version 2 reads the physical model; fp64's A100 peak is 19.5 TFLOP/s (NVIDIA's A100 datasheet).
  EXPECT_EQ(row(r.out, "training.model"), (std::vector<std::string>{"training.model", "physical", "default"}));
  EXPECT_EQ(row(r.out, "training.gpu_tflops"),
            (std::vector<std::string>{"training.gpu_tflops", "19.5 TFLOP/s", "default"}));
  EXPECT_EQ(row(r.out, "generator.gpus_per_unit.90B"),
            (std::vector<std::string>{"generator.gpus_per_unit.90B", "8", "default"}));
  EXPECT_TRUE(row(r.out, "jobs[0].type").empty());  // a generator, not a list
  EXPECT_NE(r.out.find("jobs as run builds them (2 drawn with seed 5, 2 placed)"), std::string::npos) << r.out;
  EXPECT_EQ(row(r.out, "generator.seed"), (std::vector<std::string>{"generator.seed", "5", "file"}));
  const auto seeded = odcnsim("show --platform platforms/clos-8pod.yaml --workload " + w + " --seed 9", dir);
  EXPECT_NE(seeded.out.find("(2 drawn with seed 9, 2 placed)"), std::string::npos) << seeded.out;
  EXPECT_EQ(row(seeded.out, "generator.seed"), (std::vector<std::string>{"generator.seed", "9", "--seed"}));
  // "01" is version 1, as the reader reads it: tang-eq8.
  const auto v01 = dir.write("v01.yaml", "version: 01\ngenerator: {jobs: 2, seed: 5}\n");
  EXPECT_EQ(row(odcnsim("show --platform platforms/clos-8pod.yaml --workload " + v01, dir).out, "training.model"),
            (std::vector<std::string>{"training.model", "tang-eq8", "default"}));
}

TEST(Show, EachFileAloneAndAJobGraphAsRunPlacesIt) {
  TempDir dir;
  auto r = odcnsim("show --platform platforms/photonic-rail-16.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(row(r.out, "ocs.technology"), (std::vector<std::string>{"ocs.technology", "piezo", "file"}));
  EXPECT_EQ(row(r.out, "nic.rings"), (std::vector<std::string>{"nic.rings", "bidirectional", "default"}));
  EXPECT_EQ(r.out.find("workload"), std::string::npos);
  r = odcnsim("show --workload docs/examples/job-graph-dp4.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(row(r.out, "job_graphs[0].endpoints"),
            (std::vector<std::string>{"job_graphs[0].endpoints", "{start: 0, count: 4}", "file"}));
  EXPECT_NE(r.err.find("is a job graph, run as one job with rank i on endpoint i (0-3)"), std::string::npos) << r.err;
}

TEST(Show, ListKeysPrintsTheTablesTheReadersUse) {
  TempDir dir;
  auto r = odcnsim("show --list-keys", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* kind : {"clos_ocs:", "flat_ocs:", "photonic_rail:", "electrical:", "tdm4-jobs:", "ps-jobs:",
                           "job-graphs:"})
    EXPECT_TRUE(r.out.rfind(kind, 0) == 0 || r.out.find(std::string("\n") + kind) != std::string::npos) << kind;
  const auto delay = row(r.out, "ocs.reconfig_delay_us");
  ASSERT_GE(delay.size(), 6u);
  EXPECT_EQ(delay[1], "number");
  EXPECT_EQ(delay[2], "us");
  EXPECT_EQ(delay[3], "0.001 to 1e+15");  // docs/limits.md: every duration from 1 ns to 1e9 s
  EXPECT_EQ(delay[4], "(or reconfig_delay_ms)");
  const auto server = row(r.out, "ps_jobs.ps_server");
  ASSERT_GE(server.size(), 5u);
  EXPECT_EQ(server[3], "colocated | dedicated | sharded");
  EXPECT_EQ(server[4], "colocated");
  // The files' kinds only.
  r = odcnsim("show --list-keys --platform platforms/flat-ocs-16.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("flat_ocs:", 0), 0u);
  EXPECT_EQ(r.out.find("clos_ocs:"), std::string::npos);
  r = odcnsim("show --list-keys --workload docs/examples/job-graph-dp4.json", dir);  // a job graph: job_graphs' keys
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("job-graphs:", 0), 0u) << r.out;
}

TEST(Show, ASetOfAPartOrASectionIsItsSource) {
  TempDir dir;
  const auto r = odcnsim("show --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                         "--set jobs.1.placement.2=2 --set 'training={model: physical}'",
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(row(r.out, "jobs[1].placement"),
            (std::vector<std::string>{"jobs[1].placement", "{2: 2, 3: 2, 4: 4, 5: 6}", "--set"}));
  EXPECT_EQ(row(r.out, "training.model"), (std::vector<std::string>{"training.model", "physical", "--set"}));
  EXPECT_EQ(row(r.out, "jobs[0].placement")[2], "file");
}

TEST(Show, RefusesAsRunDoes) {
  TempDir dir;
  const auto bad = dir.write("bad.yaml", "kind: clos_ocs\npods: {count: 8, gpus_per_pod: 8, tor_gbps: 600, colour: 1}\n");
  expect_refusals(
      {{"show", "command line: show: give --platform, --workload or both, or --list-keys"},
       {"show --platform platforms/clos-8pod.yaml --set ocs.port_gbps=-1",
        "command line: --set ocs.port_gbps=-1: must be > 0"},
       {"show --platform " + bad, bad + ": pods.colour: unknown key (allowed: count, gpus_per_pod, tor_gbps, inc_jobs, "
                                        "servers_per_pod, server_gbps)"},
       {"show --platform workloads/small-mix.yaml --workload platforms/clos-8pod.yaml",
        "workloads/small-mix.yaml: (file): is a workload, given as --platform"},
       {"show --platform platforms/clos-8pod.yaml --set ocs.duplx=full",
        "command line: --set ocs.duplx=full: unknown key (allowed: ports_per_pod"},
       {"show --platform platforms/clos-8pod.yaml --seed x", "command line: --seed: must be a whole number"},
       // the two files together, as validate checks them: nothing on stdout when they do not fit
       {"show --platform platforms/electrical-16.yaml --workload workloads/llama3-1000.yaml",
        "workloads/llama3-1000.yaml: jobs: the TDM-4 paper's jobs run on clos_ocs platforms"},
       {"show --platform platforms/clos-256pod.yaml --workload workloads/inc-aoi-800.yaml",
        "platforms/clos-256pod.yaml: pods.servers_per_pod: "},
       {"show --platform platforms/clos-8pod.yaml --workload workloads/graphs-dp4.yaml --set job_graphs.0.endpoints=[0]",
        "command line: --set job_graphs.0.endpoints=[0]: lists 1 endpoints, but the graph has 4 ranks"}},
      dir);
  // A workload that does not deploy: refused before anything is printed (its rows would come first).
  const auto w = dir.write("w99.yaml", "jobs: [{type: rar, model: 1B, gpus_per_unit: 1, placement: {0: 2, 99: 2}}]\n");
  const auto r = odcnsim("show --platform platforms/clos-8pod.yaml --workload " + w, dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind(w + ": jobs[0].placement.99: ", 0), 0u) << r.err;
}
