// Golden scenarios: every platform/workload pair the README mentions, with its key numbers. The expected
// numbers are derived by hand from Eq. (4)-(5), Eq. (8) and Alg. 2/3 in the comments, not copied from a run.
#include <gtest/gtest.h>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

const double B = 150e9 / 8;  // one OCS port, bytes/s

double eq8(double params_gb) { return 8.0 * 8192 * params_gb * 1e9 / (26e12 * 0.4); }

void expect_rel(double measured, double expected, double rel = 1e-9) {
  EXPECT_NEAR(measured, expected, rel * expected) << "relative error " << (measured - expected) / expected;
}

}  // namespace

TEST(Golden, Clos8podSmallMixStatic) {
  // clos-8pod: 4 ports/pod at 150 Gb/s, B_tor = 600 Gb/s. small-mix:
  //  ps-1B   units of 2 GPUs, 2 units in each of pods 0-3, server in pod 0: pods 1-3 each push 2·Φ = 4.92 GB
  //          to pod 0 (one circuit each), pull the same back; aggregation defaults to t_train (Eq. 3).
  //  rar-3B  8 units, masters in pods 2,3,4,5; the only linked pair among them is (4,5) (from a2a-8B), so
  //          Alg. 3 gives the ring 2->3->4->5->2; each edge carries 2·7/8·Φ = 11.235 GB on one circuit.
  //  a2a-8B  2 units of 4 GPUs in each of pods 4-7: F = Φ/(U·E) = 21.2/32 GB, A_ij = 2·2·F·U = 10.6 GB each way
  //          on one circuit per pair (pods 4 and 5 have used all 4 ports, so Alg. 2 adds nothing).
  // The jobs' communication phases never overlap in time (their training times differ by seconds).
  TempDir dir;
  const auto out = dir.path("o");
  const auto r = odcnsim("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy static "
                         "--iterations 3 --out " + out, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const double ps = 2 * eq8(2.46) + 2 * (2 * 2.46e9 / B);
  const double rar = eq8(6.42) + 1.75 * 6.42e9 / B;
  const double a2a = eq8(21.2) + 2 * 10.6e9 / B;
  const auto s = read_json(out + "/summary.json");
  EXPECT_EQ(s["jobs"], 3);
  EXPECT_EQ(s["reconfigurations"], 0);
  expect_rel(s["makespan_s"].get<double>(), 3 * a2a);
  expect_rel(s["mean_iteration_s"].get<double>(), (ps + rar + a2a) / 3);
  // Static: no reconfiguration, no waiting; communication is the part of each iteration not computing.
  const auto& sh = s["iteration_time_shares"];
  const double compute = 2 * eq8(2.46) + eq8(6.42) + eq8(21.2);
  expect_rel(sh["compute"].get<double>(), compute / (ps + rar + a2a));
  EXPECT_EQ(sh["reconfiguration_stall"].get<double>(), 0);
  EXPECT_EQ(sh["waiting"].get<double>(), 0);
  EXPECT_NEAR(sh["compute"].get<double>() + sh["communication"].get<double>(), 1.0, 1e-12);
  // One circuit per demand pair: 3 for the PS star, 4 for the ring, 6 among pods 4-7, (4,5) shared: 12
  // pairs. Then the spare ports go to the longest pair that can still grow: (4,5) cannot (pods 4 and 5 use
  // all 4 ports), so (6,7) (21.2 GB) gets a second circuit, then (2,3) (11.235 GB), then (0,1) (9.84 GB).
  // None of them is a job's bottleneck, so the iteration times above do not change.
  const std::string circuits = read_file(out + "/circuits.csv");
  EXPECT_EQ(std::count(circuits.begin(), circuits.end(), '\n'), 1 + 12);
  EXPECT_NE(circuits.find("0,0,2,5,0,1,initial"), std::string::npos) << "the ring closes 5->2";
  EXPECT_NE(circuits.find("0,0,6,7,0,2,initial"), std::string::npos);
  EXPECT_NE(circuits.find("0,0,2,3,0,2,initial"), std::string::npos);
  EXPECT_NE(circuits.find("0,0,0,1,0,2,initial"), std::string::npos);
}

TEST(Golden, Clos8podSmallMixTdm4BeatsAggregateAndMatchesPlan) {
  TempDir dir;
  double rounds[2];
  int i = 0;
  for (const char* policy : {"tdm4", "aggregate"}) {
    const auto out = dir.path(policy);
    const auto r = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml "
                                       "--policy {} --iterations 2 --out {}",
                                       policy, out),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(out + "/summary.json");
    expect_rel(s["round_time_s"].get<double>(), s["predicted_round_time_s"].get<double>(), 1e-6);
    rounds[i++] = s["round_time_s"].get<double>();
  }
  // Aggregate: every job trains together, so a round is two compute stages bounded by the longest job
  // (a2a-8B, Eq. 8) plus two communication stages. TDM overlaps them and cannot be slower.
  EXPECT_GE(rounds[1], 2 * eq8(21.2));
  EXPECT_LE(rounds[0], rounds[1]);
}

namespace {

struct Pair {
  nlohmann::json tdm4, aggregate;
};

/// Runs one round of tdm4 and of aggregate and checks what both must satisfy.
Pair run_both(const std::string& workload, int jobs, const std::string& platform = "platforms/clos-256pod.yaml") {
  TempDir dir;
  Pair p;
  for (const char* policy : {"tdm4", "aggregate"}) {
    const auto out = dir.path(policy);
    const auto r = odcnsim(
        fmt::format("run --platform {} --workload {} --policy {} --out {}", platform, workload, policy, out), dir);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto s = read_json(out + "/summary.json");
    EXPECT_EQ(s["jobs"], jobs);
    EXPECT_EQ(s["unplaced_jobs"], 0);
    // The engine measures exactly what the planner predicted.
    expect_rel(s["round_time_s"].get<double>(), s["predicted_round_time_s"].get<double>(), 1e-6);
    (std::string(policy) == "tdm4" ? p.tdm4 : p.aggregate) = s;
  }
  return p;
}

}  // namespace

TEST(Golden, Clos256podLlama3Thousand) {
  // TDM-4 §IV.A at full scale: 1,000 generated jobs, 8k context. A round holds two compute stages, each at
  // least the longest Eq. (8) time (90B: 1,119 s), so the round is >= 2 x 1,119 s.
  const auto p = run_both("workloads/llama3-1000.yaml", 1000);
  EXPECT_GE(p.aggregate["round_time_s"].get<double>(), 2 * eq8(177.6));
  // Here no single move helps: the first job moved into group B makes every stage transition reconfigure
  // (+4δ = 2 ms) while the round's communication term is a max over 32 pod groups that one job cannot lower.
  // Alg. 1 therefore keeps A = J, which is the aggregate schedule.
  EXPECT_EQ(p.tdm4["hill_climb_moves"], 0);
  EXPECT_EQ(p.tdm4["round_time_s"], p.aggregate["round_time_s"]);
  EXPECT_EQ(p.aggregate["reconfigurations"], 0);
}

TEST(Golden, Clos256podLlama3FourThousandShortContext) {
  // 4,000 jobs with a 2k context: training is 4x shorter and communication 4x larger than above, and TDM
  // overlaps one group's communication with the other's training.
  const auto p = run_both("workloads/llama3-4000-ctx2k.yaml", 4000);
  EXPECT_GE(p.aggregate["round_time_s"].get<double>(), 2 * eq8(177.6) / 4);
  EXPECT_GT(p.tdm4["hill_climb_moves"].get<int>(), 0);
  EXPECT_LT(p.tdm4["round_time_s"].get<double>(), p.aggregate["round_time_s"].get<double>());
  EXPECT_GT(p.tdm4["reconfigurations"].get<int>(), 0);
}

TEST(Golden, Clos32podSmallModels) {
  // The incremental-vs-full benchmark instance: 120 small jobs, 4 pod groups. Training (1B at 256 tokens:
  // Eq. 8 gives 0.48 s) is short next to communication, so the climb moves jobs and TDM wins; and its
  // full-evaluation twin gives the very same plan.
  const auto p = run_both("workloads/small-models-120.yaml", 120, "platforms/clos-32pod.yaml");
  EXPECT_GT(p.tdm4["hill_climb_moves"].get<int>(), 0);
  EXPECT_LT(p.tdm4["round_time_s"].get<double>(), p.aggregate["round_time_s"].get<double>());
  EXPECT_GE(p.aggregate["round_time_s"].get<double>(), 2 * eq8(6.42) * 256 / 8192);
  TempDir dir;
  std::string runs[2];
  for (int full = 0; full < 2; ++full) {
    const auto out = dir.path(full ? "full" : "inc");
    ASSERT_EQ(odcnsim(fmt::format("run --platform platforms/clos-32pod.yaml --workload workloads/small-models-120.yaml "
                                  "--policy tdm4 --quiet --out {} {}",
                                  out, full ? "--full-eval" : ""),
                      dir)
                  .code,
              0);
    runs[full] = read_file(out + "/stages.csv") + read_file(out + "/iterations.csv");
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(Golden, JobGraphsOnEveryPlatformKind) {
  // workloads/graphs-dp4.yaml: two independent copies of docs/examples/job-graph-dp4.json. An iteration is 0.25 s
  // of compute on every rank, a ring all-reduce of S = 2^30 bytes over ranks 0-3 at the rate one ring edge
  // offers (2·3/4·S/r), then a 10 ms step beside a 1 MB transfer that is shorter. Per platform, r is:
  //   clos-8pod:        2 half-duplex circuits of 150 Gb/s per ring edge (each edge carries one direction)
  //   flat-ocs-16:      2 full-duplex circuits of 40 Gb/s per edge (4 ports: one per neighbour, then the spares)
  //   photonic-rail-16: ranks 0-3 are one scale-up domain: 2,400 Gb/s per GPU
  //   electrical-16:    NICs of 4 x 40 Gb/s
  const double S = 1073741824.0;
  for (const auto& [platform, rate] : {std::pair{"clos-8pod", 300e9}, std::pair{"flat-ocs-16", 80e9},
                                      std::pair{"photonic-rail-16", 2400e9}, std::pair{"electrical-16", 160e9}}) {
    SCOPED_TRACE(platform);
    TempDir dir;
    const auto out = dir.path("o");
    const auto r = odcnsim(fmt::format("run --platform platforms/{}.yaml --workload workloads/graphs-dp4.yaml --out {}",
                                       platform, out), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(out + "/summary.json");
    const double iteration = 0.25 + 1.5 * S / (rate / 8) + 0.01;
    expect_rel(s["mean_iteration_s"].get<double>(), iteration);
    expect_rel(s["makespan_s"].get<double>(), 3 * iteration);
    EXPECT_EQ(s["iteration_rows"], 6);
    EXPECT_EQ(s["reconfigurations"], 0);
  }
}
