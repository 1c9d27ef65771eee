// INC-AOI (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs", §II: the OCS gives the ToRs
// "diverse connectivity (all-to-all, Torus, etc.)"): the platform's base topology (ocs.base_topology), a torus
// beside the ring, and its refusals. Times worked out by hand from the platform's numbers: NICs and circuits of
// 5 GB/s, δ = 50 ms, W = 2 per job and no INC (noinc-ljf), so the PS's NIC takes S and each stream is S each way.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "cli/inc_support.hpp"

using namespace odcn::test;

namespace {

/// Nine racks: a 3 × 3 torus takes 4 ports of each ToR (rack r at row r / 3, column r % 3), a ring 2; 5 ports.
constexpr const char* kNineRacks = R"(kind: clos_ocs
pods: {count: 9, gpus_per_pod: 8, tor_gbps: 320, inc_jobs: 1, servers_per_pod: 8, server_gbps: 40}
ocs: {ports_per_pod: 5, port_gbps: 40, oxcs: 1, ports_per_oxc: 45, pods_per_group: 9, reconfig_delay_ms: 50, duplex: full}
)";

std::string job(const std::string& name, int rack_a, int server_a, int rack_b, int server_b) {
  return fmt::format("    - {{name: {}, push_gb: 5, compute_ms: 0, servers: [[{}, {}], [{}, {}]]}}\n", name, rack_a,
                     server_a, rack_b, server_b);
}

}  // namespace

TEST(IncAoiTopology, ATorusForwardsAlongTheRowThenTheColumnWithTheBytesOnEveryHop) {
  TempDir dir;
  // Racks 0 (row 0, column 0) and 4 (row 1, column 1): no torus edge. The torus forwards 0 -> 1 -> 4 (2 hops), a
  // ring of 9 racks 0 -> 1 -> 2 -> 3 -> 4 (4 hops). Alone, every hop runs at 5 GB/s: push 1 s, pull 1 s, and the
  // 5 GB of each direction count once per hop: 20 GB between racks on the torus, 40 GB on the ring.
  const std::string w = "ps_jobs:\n  jobs:\n" + job("a", 0, 0, 4, 0);
  auto s = run(dir, w, "noinc-ljf", "torus", with_base("torus", kNineRacks));
  EXPECT_NEAR(s["makespan_s"].get<double>(), 2.0, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 0);
  EXPECT_NEAR(cell(csv(dir.path("torus") + "/ps_jobs.csv"), 1, "inter_rack_bytes"), 20e9, 1e-3);
  s = run(dir, w, "noinc-ljf", "ring", with_base("ring", kNineRacks));
  EXPECT_NEAR(s["makespan_s"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(cell(csv(dir.path("ring") + "/ps_jobs.csv"), 1, "inter_rack_bytes"), 40e9, 1e-3);
  // Racks 0 and 8 (row 2, column 2): one step back along row 0 to column 2 (rack 2), one step back along
  // column 2 to row 2: 2 hops, 20 GB.
  s = run(dir, "ps_jobs:\n  jobs:\n" + job("a", 0, 0, 8, 0), "noinc-ljf", "corner", with_base("torus", kNineRacks));
  EXPECT_NEAR(s["makespan_s"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(cell(csv(dir.path("corner") + "/ps_jobs.csv"), 1, "inter_rack_bytes"), 20e9, 1e-3);
}

TEST(IncAoiTopology, ATorusHopSharedByTwoStreamsGetsACircuitOnlyWhenItPaysBackItsDelay) {
  TempDir dir;
  // b on the torus edge 0-1; a between racks 0 and 4, forwarded over 0 -> 1 -> 4, would share hop 0-1 (h = 2).
  // 5 GB: a's B = 2 × 5 GB takes B·(h - 1)/c = 2 s more than on a circuit of its own, above δ = 50 ms: LJF lights
  // 0-4 (racks 0 and 4 have a fifth port): a 0.05 + 1 + 1 s, b 1 + 1 s, one reconfiguration.
  const std::string big = "ps_jobs:\n  jobs:\n" + job("a", 0, 0, 4, 0) + job("b", 0, 1, 1, 0);
  auto s = run(dir, big, "noinc-ljf", "pays", with_base("torus", kNineRacks));
  auto rows = csv(dir.path("pays") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(rows, 1, "done_s"), 2.05, 1e-9);
  EXPECT_NEAR(cell(rows, 2, "done_s"), 2.0, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 1);
  // 0.1 GB each: 0.04 s more over the shared hop, below δ: a stays forwarded, and a and b share hop 0-1 at
  // 2.5 GB/s each: 0.04 s each way, 0.08 s for both.
  std::string small = big;
  for (auto at = small.find("push_gb: 5"); at != std::string::npos; at = small.find("push_gb: 5"))
    small.replace(at, 10, "push_gb: 0.1");
  s = run(dir, small, "noinc-ljf", "small", with_base("torus", kNineRacks));
  rows = csv(dir.path("small") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(rows, 1, "done_s"), 0.08, 1e-9);
  EXPECT_NEAR(cell(rows, 2, "done_s"), 0.08, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 0);
}

TEST(IncAoiTopology, BadBaseTopologiesAreRefusedNamingTheField) {
  TempDir dir;
  const std::string w = dir.write("w.yaml", "ps_jobs:\n  jobs:\n" + job("a", 0, 0, 1, 0));
  const auto refuse = [&](const std::string& platform, const std::string& workload, const std::string& policy,
                          const std::string& needle) {
    const auto r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy {} --quiet --out '{}'",
                                       dir.write("p.yaml", platform), workload, policy, dir.path("o")),
                           dir);
    EXPECT_EQ(r.code, 2) << needle << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  };
  refuse(with_base("mesh", kNineRacks), w, "noinc-ljf", "ocs.base_topology: must be none, ring, torus or all-to-all");
  // A 3 x 3 torus takes 4 ports; all-to-all over 9 racks 8.
  std::string four = with_base("torus", kNineRacks);
  four.replace(four.find("ports_per_pod: 5"), 16, "ports_per_pod: 3");
  refuse(four, w, "noinc-ljf", "a base torus over 9 pods takes 4 ports of each ToR, which has 3");
  refuse(with_base("all-to-all", kNineRacks), w, "noinc-ljf", "a base all-to-all over 9 pods takes 8 ports");
  std::string groups = with_base("ring");
  groups.replace(groups.find("oxcs: 1"), 7, "oxcs: 2");
  groups.replace(groups.find("pods_per_group: 4"), 17, "pods_per_group: 2");
  refuse(groups, w, "noinc-ljf", "one OXC group must hold them all");
  // The workload key of the previous build moved to the platform.
  const std::string old = dir.write("old.yaml", "ps_jobs:\n  scheduler: {base_topology: ring}\n  jobs:\n" +
                                                    job("a", 0, 0, 1, 0));
  refuse(kPlatform, old, "noinc-ljf", "ps_jobs.scheduler.base_topology: the base topology is now the platform's");
  // Only INC-AOI's policies light one (TDM-4 plans every circuit itself).
  refuse(with_base("ring"), "workloads/small-mix.yaml", "tdm4", "ocs.base_topology: only INC-AOI's policies");
}
