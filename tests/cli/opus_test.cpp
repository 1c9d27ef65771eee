// Policy opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters") as a user runs it, on the Llama3-8B
// TorchTitan-like preset of Opus §3.1: delay 0 equals the electrical twin, provisioning is never slower than
// on-demand, the windows it reports, and its refusals.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

constexpr const char* kWorkload = "--workload workloads/opus-llama3-8b.yaml --iterations 3 --no-slowdown ";

double iteration_s(const TempDir& dir, const std::string& policy, const std::string& platform, const std::string& extra,
                   const std::string& name) {
  const auto r = odcnsim("run --platform platforms/" + platform + " " + kWorkload + "--policy " + policy + " " + extra +
                             " --out " + dir.path(name),
                         dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return read_json(dir.path(name) + "/summary.json")["makespan_s"].get<double>();
}

}  // namespace

TEST(Opus, DelayZeroEqualsTheElectricalTwin) {
  TempDir dir;
  const double electrical = iteration_s(dir, "static", "electrical-rail-16.yaml", "", "e");
  for (const char* mode : {"opus:on-demand", "opus:provisioned"}) {
    const double photonic =
        iteration_s(dir, mode, "photonic-rail-16.yaml", "--set ocs.reconfig_delay_ms=0", std::string("p") + mode[5]);
    EXPECT_NEAR(photonic, electrical, 1e-9 * electrical) << mode;
  }
  // Observing the electrical twin changes nothing either.
  EXPECT_NEAR(iteration_s(dir, "opus", "electrical-rail-16.yaml", "", "eo"), electrical, 1e-9 * electrical);
}

TEST(Opus, ProvisionedIsNeverSlowerThanOnDemandAndDelayCosts) {
  TempDir dir;
  const double electrical = iteration_s(dir, "static", "electrical-rail-16.yaml", "", "e");
  double previous = electrical;
  for (const char* ms : {"0.01", "1", "10", "25", "100"}) {
    const std::string set = std::string("--set ocs.reconfig_delay_ms=") + ms;
    const double on_demand = iteration_s(dir, "opus:on-demand", "photonic-rail-16.yaml", set, std::string("d") + ms);
    const double provisioned = iteration_s(dir, "opus:provisioned", "photonic-rail-16.yaml", set, std::string("p") + ms);
    EXPECT_LE(provisioned, on_demand * (1 + 1e-12)) << ms << " ms";
    EXPECT_GT(on_demand, previous) << ms << " ms: a longer delay must cost more";
    EXPECT_GE(provisioned, electrical) << ms << " ms";
    previous = on_demand;
  }
}

TEST(Opus, WindowsAndReconfigurationsAreReported) {
  TempDir dir;
  const auto r = odcnsim(std::string("run --platform platforms/photonic-rail-16.yaml ") + kWorkload +
                             "--policy opus:on-demand --out " + dir.path("o"),
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = read_json(dir.path("o") + "/summary.json");
  // Per rail, four groups (the FSDP pairs {0,4}, {8,12} and the pipelines {0,8}, {4,12}), each of which shares a
  // GPU with two others: every group must be set up at least once per iteration, so at least 4 x 4 = 16
  // configurations; and at most one per communication task that crosses domains (on demand configures only for a
  // task that needs it): per rail, 2 x 17 all-gathers, 2 x 17 reduce-scatters, 2 x 2 x 2 pipeline messages, 2 + 2
  // norm all-reduces = 80, so 320.
  const double per_iteration = s["reconfigurations_per_iteration"].get<double>();
  EXPECT_GE(per_iteration, 16.0);
  EXPECT_LE(per_iteration, 320.0);
  EXPECT_EQ(s["on_demand_reconfigurations"].get<int>(), static_cast<int>(per_iteration * 3 + 0.5));
  EXPECT_EQ(s["provisioned_reconfigurations"].get<int>(), 0);
  EXPECT_EQ(s["communication_groups"].get<int>(), 16);
  EXPECT_GT(s["windows"].get<int>(), 0);
  const auto csv = read_file(dir.path("o") + "/windows.csv");
  EXPECT_EQ(csv.rfind("job,iteration,gpu,rail,from_group,to_group,opens_s,window_s,next_task,next_task_name\n", 0), 0u);
  EXPECT_NE(r.out.find("reconfigurations per iteration"), std::string::npos);
  // Opus §3.1: the largest window precedes the reduce-scatter (stage 0 waits for the last gradient, then
  // reduce-scatters its last layer first).
  const auto before = s["largest_window_before"].get<std::string>();
  EXPECT_EQ(before.rfind("s0.", 0), 0u) << before;
  EXPECT_NE(before.find(".rs."), std::string::npos) << before;
}

TEST(Opus, Refusals) {
  TempDir dir;
  auto r = odcnsim("run --platform platforms/flat-ocs-16.yaml --workload workloads/graphs-dp4.yaml --policy opus "
                   "--out " + dir.path("x"),
                   dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("command line: --policy: policy opus reconfigures photonic rails"), std::string::npos) << r.err;
  r = odcnsim("run --platform platforms/photonic-rail-16.yaml --workload workloads/opus-llama3-8b.yaml --policy "
              "opus:eager --out " + dir.path("x"),
              dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path("x")));
}
