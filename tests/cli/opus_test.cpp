// Policy opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters") as a user runs it, on the Llama3-8B
// TorchTitan-like preset of Opus §3.1: delay 0 equals the electrical twin, provisioning is never slower than
// on-demand, the windows it reports, and its refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

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
  EXPECT_EQ(csv.rfind("job,iteration,gpu,rail,from_group,to_group,opens_s,window_s,next_task,next_task_name,"
                      "next_bytes,steady\n",
                      0),
            0u);
  EXPECT_NE(r.out.find("reconfigurations per iteration"), std::string::npos);
  // Opus §3.1: the largest window precedes the reduce-scatter (stage 0 waits for the last gradient, then
  // reduce-scatters its last layer first).
  const auto before = s["largest_window_before"].get<std::string>();
  EXPECT_EQ(before.rfind("s0.", 0), 0u) << before;
  EXPECT_NE(before.find(".rs."), std::string::npos) << before;
}

namespace {

/// A job graph of `ranks` ranks with these tasks, and a workload that puts rank r on GPU endpoints[r].
std::string write_job(const TempDir& dir, const std::string& name, int ranks, const std::string& tasks,
                      const std::string& endpoints) {
  dir.write(name + ".json", fmt::format(R"({{"format": "odcnsim-job-graph", "version": 1, "name": "{}", "ranks": {},
  "iterations": 1, "tasks": [{}]}})",
                                        name, ranks, tasks));
  return dir.write(name + ".yaml", fmt::format("job_graphs:\n  - file: {}.json\n    endpoints: [{}]\n", name, endpoints));
}

/// The makespan of one iteration of `workload` on `platform` under `policy`.
double makespan(const TempDir& dir, const std::string& workload, const std::string& platform, const std::string& policy,
                const std::string& extra, const std::string& out) {
  const auto r = odcnsim("run --platform platforms/" + platform + " --workload " + workload + " --policy " + policy +
                             " --iterations 1 --no-slowdown --quiet " + extra + " --out " + dir.path(out),
                         dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return read_json(dir.path(out) + "/summary.json")["makespan_s"].get<double>();
}

constexpr double kNic = 400e9 / 8;   // a GPU's NIC on a rail: 2 x 200 Gb/s, bytes/s
constexpr double kPort = 200e9 / 8;  // one circuit, one way

}  // namespace

// Opus §5 (Fig. 3(b)): circuits per communication group. On rail 0 (GPUs 0, 4, 8, 12), a 3-stage pipeline over
// GPUs 0 -> 4 -> 8 runs beside a data-parallel all-reduce of stage 2 with GPU 12: the activation 0 -> 4 (M bytes)
// and the all-reduce (D bytes) start at once; stage 1 computes c, then sends M to stage 2, after the all-reduce has
// ended (D / B < M / B + c). Each hop is its own pair group with both ports, so on electrical rails and on photonic
// rails at delay 0 the iteration is 2 M / B + c; on demand at delay δ each hop waits δ: 2 (M / B + δ) + c.
TEST(Opus, APipelineBesideADataParallelCollectiveIsPerGroup) {
  TempDir dir;
  const double M = 1e9, D = 2e9, c = 0.05, delta = 0.01;
  const std::string w = write_job(dir, "pp3", 4,
                                  R"({"id": "act01", "kind": "transfer", "src": 0, "dst": 1, "bytes": 1e9},
    {"id": "dp", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [2, 3], "bytes": 2e9},
    {"id": "fwd1", "kind": "compute", "rank": 1, "duration_s": 0.05, "deps": ["act01"]},
    {"id": "act12", "kind": "transfer", "src": 1, "dst": 2, "bytes": 1e9, "deps": ["fwd1"]})",
                                  "0, 4, 8, 12");
  ASSERT_LT(D / kNic, M / kNic + c);
  const double expected = 2 * M / kNic + c;
  EXPECT_NEAR(makespan(dir, w, "electrical-rail-16.yaml", "static", "", "e"), expected, 1e-9 * expected);
  for (const char* mode : {"opus:on-demand", "opus:provisioned"})
    EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", mode, "--set ocs.reconfig_delay_ms=0", std::string("z") + mode[5]),
                expected, 1e-9 * expected)
        << mode;
  const double slow = 2 * (M / kNic + delta) + c;
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus:on-demand", "--set ocs.reconfig_delay_ms=10", "d"), slow,
              1e-9 * slow);
  // Split hops give each middle stage one circuit to each neighbour: the hops run at one port, M / 200 Gb/s.
  const double split = 2 * M / kPort + c;
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus:on-demand",
                       "--set ocs.reconfig_delay_ms=0 --set nic.hop_circuits=split", "s"),
              split, 1e-9 * split);
}

// A ring all-reduce of S over three GPUs of one rail (0, 4, 8). Electrical: 2 (n - 1) / n · S / B with the NIC's
// B = 400 Gb/s. On photonic rails each GPU has one 200 Gb/s circuit to each neighbour; the two counter-rotating
// rings (nic.rings: bidirectional, the default) send S / 2n each way on both, which is the electrical time at
// delay 0; one way round, each step's S / n crosses one circuit: twice as long.
TEST(Opus, CounterRotatingRingsOnCircuitsEqualElectricalRails) {
  TempDir dir;
  const double S = 3e9;
  const std::string w = write_job(
      dir, "ring3", 3, R"({"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2], "bytes": 3e9})",
      "0, 4, 8");
  const double electrical = 2.0 * 2 / 3 * S / kNic;
  EXPECT_NEAR(makespan(dir, w, "electrical-rail-16.yaml", "static", "", "e"), electrical, 1e-9 * electrical);
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus", "--set ocs.reconfig_delay_ms=0", "p"), electrical,
              1e-9 * electrical);
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus", "--set ocs.reconfig_delay_ms=0 --set nic.rings=one-way",
                       "o"),
              2 * electrical, 1e-9 * electrical);
}

// Rail fabrics route like NCCL's PXN: on electrical rails a message from GPU 0 to GPU 5 (another server, another
// rail) goes over the scale-up domain to GPU 1 and out of its NIC, at the NIC's rate (the scale-up is 6 times
// faster): S / B. A ring all-reduce over all 16 GPUs then runs: its hops 3 -> 4, 7 -> 8, 11 -> 12 and 15 -> 0 go
// through GPUs 0, 4, 8 and 12, no link carries two flows, and each step takes (S / n) / B, the NIC's: 2 (n - 1) / n
// · S / B in all.
TEST(Opus, RailsForwardAcrossRailsLikeNcclPxn) {
  TempDir dir;
  const double M = 1e9, S = 1.6e10;
  const std::string w = write_job(dir, "pxn", 16,
                                  R"({"id": "m", "kind": "transfer", "src": 0, "dst": 5, "bytes": 1e9},
    {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring",
     "group": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], "bytes": 1.6e10, "deps": ["m"]})",
                                  "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15");
  const double expected = M / kNic + 2.0 * 15 / 16 * S / kNic;
  for (const char* policy : {"static", "opus"})
    EXPECT_NEAR(makespan(dir, w, "electrical-rail-16.yaml", policy, "", std::string("e") + policy), expected,
                1e-12 * expected)
        << policy;
  // Photonic rails forward the same way, through the proxy's rail circuit: 0 -> 5 on GPU 1's circuit to 5 (both
  // ports: 400 Gb/s); the ring's cross-domain flows on the proxies' circuits of rails 0 and 3, one circuit
  // (200 Gb/s) to each neighbour but half the bytes each way, so each step takes what it takes on the electrical
  // NIC. At delay 0 that is the electrical time; on demand each of the two groups waits for one set-up.
  const double delay = 0.010;
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus:on-demand", "--set ocs.reconfig_delay_ms=0", "p0"),
              expected, 1e-12 * expected);
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus:on-demand", "--set ocs.reconfig_delay_ms=10", "p10"),
              expected + 2 * delay, 1e-12 * expected);
}

// A ring inside one scale-up domain (one way on both twins: counter-rotating rings are for rings that leave their
// domain; on the scale-up star both ways give the same times, one way with half the flows): an all-reduce of S
// over GPUs 0, 1, 2 beside a transfer of M from GPU 0 to GPU 1, which shares GPU 0's up link. That link is busy
// throughout with the ring's 4 steps of S/3 and the transfer: the transfer ends at (M + 4S/3)/B, after the ring,
// on both fabrics (B: scale-up per GPU).
TEST(Opus, ARingInsideADomainBesideATransferTakesItsClosedFormOnBothTwins) {
  TempDir dir;
  const double S = 3e9, M = 8e9, B = 2400e9 / 8;
  const std::string w = write_job(dir, "tp", 3,
                                  R"({"id": "m", "kind": "transfer", "src": 0, "dst": 1, "bytes": 8e9},
    {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2], "bytes": 3e9})",
                                  "0, 1, 2");
  const double expected = (M + 4 * S / 3) / B;
  EXPECT_NEAR(makespan(dir, w, "electrical-rail-16.yaml", "static", "", "e"), expected, 1e-12 * expected);
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-16.yaml", "opus:on-demand", "", "p"), expected, 1e-12 * expected);
}

// The Llama3.1-405B-like preset on 1,024 GPUs: FSDP rings of 8 GPUs per rail (counter-rotating on one circuit to
// each neighbour) and 16-stage pipelines (each hop its own group): delay 0 equals electrical rails.
TEST(Opus, DelayZeroEqualsElectricalOnThe405bPreset) {
  TempDir dir;
  const auto g = odcnsim("generate torchtitan --preset llama3.1-405b --quiet --out " + dir.path("405b.json"), dir);
  ASSERT_EQ(g.code, 0) << g.err;
  std::string endpoints;
  for (int i = 0; i < 1024; ++i) endpoints += (i ? ", " : "") + std::to_string(i);
  const std::string w = dir.write("405b.yaml", "job_graphs:\n  - file: 405b.json\n    endpoints: [" + endpoints + "]\n");
  const double electrical = makespan(dir, w, "electrical-rail-1024.yaml", "static", "--trace none", "e");
  EXPECT_NEAR(makespan(dir, w, "photonic-rail-1024.yaml", "opus:on-demand", "--trace none --set ocs.reconfig_delay_ms=0", "p"),
              electrical, 1e-9 * electrical);
}

// Windows are counted only on the GPUs a task involves: every window's next task runs on its GPU (here rank r is
// GPU r), and none is negative. In the steady state of the Llama3-8B preset every GPU changes group four times
// an iteration. Stage 0: FSDP all-gathers -> pipeline -> FSDP reduce-scatters and norm -> pipeline norm -> the
// next iteration's all-gathers; one window is zero (the norms follow each other back to back; the optimizer step,
// 9 ms, opens the one before the all-gathers). Stage 1: the pipeline (micro-batch 0 in) -> its lazy all-gathers,
// at once (zero) -> pipeline -> reduce-scatters and norm -> pipeline norm (zero), which is the same pair as the
// next iteration's first message. So 4 windows per GPU per iteration, 3 of 4 over 1 ms on stage 0 and 2 of 4 on
// stage 1: 62.5 %. Provisioned on photonic rails (25 ms), iterations 0 and 1 settle (2.479, 2.429, then
// 2.420 s), so the steady state starts at iteration 2.
TEST(Opus, WindowsAreCountedOnTheGpusATaskInvolvesInTheSteadyState) {
  TempDir dir;
  for (const char* platform : {"electrical-rail-16.yaml", "photonic-rail-16.yaml"}) {
    const std::string out = std::string("w") + platform[0];
    const auto r = odcnsim(std::string("run --platform platforms/") + platform + " " + kWorkload +
                               "--policy opus --quiet --out " + dir.path(out),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(dir.path(out) + "/summary.json");
    EXPECT_EQ(s["windows_steady_from_iteration"].get<int>(), platform[0] == 'e' ? 1 : 2) << platform;
    EXPECT_DOUBLE_EQ(s["windows_per_gpu_iteration"].get<double>(), 4.0) << platform;
    EXPECT_DOUBLE_EQ(s["windows_over_1ms_share"].get<double>(), 0.625) << platform;
    ASSERT_EQ(s["windows_by_rail"].size(), 4u);
    const auto graph = read_json(std::string(ODCNSIM_SOURCE_DIR) + "/docs/examples/llama3-8b-torchtitan.json");
    std::istringstream csv(read_file(dir.path(out) + "/windows.csv"));
    std::string line;
    std::getline(csv, line);
    int rows = 0;
    while (std::getline(csv, line)) {
      std::vector<std::string> f;
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
      ASSERT_GE(f.size(), 12u) << line;
      const int gpu = std::stoi(f[2]);
      const auto& task = graph["tasks"][static_cast<std::size_t>(std::stoi(f[8]))];
      std::vector<int> ranks;
      if (task.contains("group")) ranks = task["group"].get<std::vector<int>>();
      else ranks = {task["src"].get<int>(), task["dst"].get<int>()};
      EXPECT_NE(std::find(ranks.begin(), ranks.end(), gpu), ranks.end()) << line;
      EXPECT_GE(std::stod(f[7]), 0.0) << line;
      ++rows;
    }
    EXPECT_GT(rows, 0);
  }
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
